// The common case in one import: parse, decode, convert and validate, with every engine afkit has.
//
//     import AudioFileKit
//     let file = try AudioFile(path: "take.mp3")
//     let report = try AssetValidator(standard: .music).validate(paths: ["Assets"])
@_exported import AssetValidation
@_exported import AudioCodecs
@_exported import AudioContainers
@_exported import AudioConversion
@_exported import AudioDecoding
@_exported import AudioEngines
@_exported import AudioFormats
@_exported import FileAccess
