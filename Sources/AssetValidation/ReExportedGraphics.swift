// What the validator draws is a module of its own (compiled beside the containers); a client of AssetValidation
// sees it all.
@_exported import ReportGraphics
