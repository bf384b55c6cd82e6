// The libFuzzer entry point. Fuzz/build.sh compiles it with the pure modules' sources and
// Tests/FuzzRegressionTests/FuzzInvariants.swift as one module, so the sanitizers and coverage reach
// the parsers. AFKIT_FUZZ_TARGET picks the target: stream, file, codecs, validator or icy.
#if canImport(Glibc)
    import Glibc
#endif

let check: @Sendable ([UInt8]) -> String? = {
    let name = getenv("AFKIT_FUZZ_TARGET").map { String(cString: $0) } ?? "stream"
    guard let check = fuzzChecks[name] else {
        fputs("AFKIT_FUZZ_TARGET: no target '\(name)' (\(fuzzChecks.keys.sorted().joined(separator: ", ")))\n", stderr)
        exit(2)
    }
    return check
}()

/// libFuzzer's entry: checks one input against every invariant; a problem aborts.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if let problem = check(Array(UnsafeBufferPointer(start: data, count: count))) {
        fputs("invariant violated: \(problem)\n", stderr)
        abort()
    }
    return 0
}
