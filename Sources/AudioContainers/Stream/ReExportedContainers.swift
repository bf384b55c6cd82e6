// AudioContainers is the containers' one face: the parsers live in modules by kind (so a build compiles them side
// by side), and a client that imports AudioContainers sees them all.
@_exported import ChunkedContainers
@_exported import ElementaryStreams
@_exported import ISOBaseMedia
@_exported import PagedContainers
@_exported import StreamParsing
