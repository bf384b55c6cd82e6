import AssetValidation

// A file validated with the bare validator: what it could not check is listed.
let path = CommandLine.arguments.dropFirst().first ?? ""
let report = AssetValidator(profile: .music).validate(path: path)
print("AssetValidation:", report.unchecked.map(\.rule).sorted())
