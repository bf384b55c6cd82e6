/// A container's identity: the contract's `container` name (`caf`, `wav`, `m4a`, ...). What a container is
/// (its names, Apple's type code, extensions, media types, signatures, parser and writer) is declared once, in
/// its descriptor beside its parser (AudioContainers' `ContainerRegistry`); the identifiers are declared there
/// too, one in each container's file (`FileType.caf`).
public struct FileType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The contract's `container` name.
    public let rawValue: String

    /// The identifier named `rawValue` (whether or not a container of that name is registered).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The contract's `container` name.
    public var description: String { rawValue }
}
