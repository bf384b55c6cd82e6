/// How hard an IMA encoder looks for the codes that decode closest to the input.
public enum IMAEncodingQuality: Hashable, Sendable {
    /// Per sample, the code whose reconstruction is nearest (the decoder runs in the loop).
    case fast
    /// A beam search keeping the `width` best decoder states (by squared error so far) at each
    /// sample, and the best of each step index reached, modelling the decoder exactly; at each IMA4
    /// packet start it also considers restarting the decoder through the header. Searches narrower
    /// than ``best`` try, of the levels next to the sample, the nearest on either side for each step
    /// index they lead to; ``best`` tries them all.
    case search(width: Int)

    /// The widest search afkit makes (`--quality best`): the 32 cheapest states and each step index's.
    public static let best = IMAEncodingQuality.search(width: IMABeamSearch.widest)
    /// afkit's default: the cheapest search whose SNR and segmental SNR beat every peer's (FFmpeg's, with
    /// and without `-trellis 8`, SoX's, libsndfile's) by at least 0.3 dB on each test signal: the 6
    /// cheapest states and each step index's (BENCHMARKS.md gives the widths measured).
    public static let balanced = IMAEncodingQuality.search(width: 6)
}

/// The encoder side of the IMA tables: for each step index, twice the midpoints between
/// consecutive reconstruction levels, so the nearest level is found with seven comparisons.
struct IMAEncoderTables {
    let differences: [Int32]
    /// `midpoints[index << 3 | m]` = level(m) + level(m+1), m in 0...6.
    let midpoints: [Int32]

    /// The beam search's candidates of a state, for each ``CandidateSet`` (`rows[set.rawValue * setSize...]`), by
    /// step index, nearest magnitude `n`, whether the sample lies beyond level `n`, and the sample's side of the
    /// predictor (`(((index << 3 | n) << 1 | beyond) << 1 | below) * 12` within the set), four lanes each: every
    /// candidate's signed difference, then what its key adds to its predictor << 7 ((32768 << 7) | next step
    /// index), then its code (``candidateCodes(nearest:beyond:set:)``; unused lanes repeat lane 0).
    let rows: [Int32]
    /// How many candidates each row of a set holds: a nibble for each `n << 1 | beyond`.
    let candidateCounts: [UInt64]
    /// The rows of one set.
    static let setSize = 89 * 8 * 2 * 2 * 12

    /// The codes the beam search tries from a state.
    enum CandidateSet: Int, CaseIterable {
        /// The nearest level and one either side of it.
        case everyNearLevel
        /// The same, less the one on the far side of the nearest level where it leads to the same step
        /// index as a level nearer the sample on its side: the nearer one reaches that decoder step with a
        /// smaller error.
        case nearestForEachStep
    }

    init(_ reconstruction: IMA.Reconstruction) {
        let differences = IMA.differenceTable(reconstruction)
        self.differences = differences
        midpoints = (0..<89 * 8).map { entry in
            entry & 7 == 7 ? Int32.max : differences[entry] + differences[entry + 1]
        }
        var rows: [Int32] = []
        rows.reserveCapacity(CandidateSet.allCases.count * Self.setSize)
        var counts: [UInt64] = []
        for set in CandidateSet.allCases {
            var nibbles: UInt64 = 0
            for index in 0..<89 {
                for nearest in 0..<8 {
                    for beyond in [false, true] {
                        var codes = Self.candidateCodes(nearest: nearest, beyond: beyond, set: set)
                        nibbles |= UInt64(codes.count) << ((nearest << 1 | (beyond ? 1 : 0)) << 2)
                        while codes.count < 4 { codes.append(codes[0]) }
                        for below in [false, true] {
                            // Subtracted where the code's sign and the sample's side say the level lies below.
                            rows += codes.map { code in
                                let difference = differences[index << 3 | Int(code & 7)]
                                return (code & 8 != 0) != below ? -difference : difference
                            }
                            rows += codes.map { code in
                                32768 << 7
                                    | min(max(Int32(index) + IMA.indexTable[Int(code)], 0), IMA.maximumStepIndex)
                            }
                            rows += codes.map { code in code ^ (below ? 8 : 0) }
                        }
                    }
                }
            }
            counts.append(nibbles)
        }
        self.rows = rows
        candidateCounts = counts
    }

    /// The codes tried from a state whose nearest magnitude is `n`, where the sample lies `beyond` level `n`
    /// or not (codes with bit 3 set take the sign opposite the sample's), in the order they are tried: n-1,
    /// n, n+1 (those in 0...7, once each), then magnitude 0 of the other sign (for n <= 1; for `n == 0` and
    /// the sample short of level 0 it is the level below the sample). ``CandidateSet/nearestForEachStep``
    /// leaves out those a level nearer the sample on the same side makes redundant (all of these but
    /// magnitudes 4 to 7 lead to the same step index).
    static func candidateCodes(nearest n: Int, beyond: Bool, set: CandidateSet) -> [Int32] {
        var codes: [Int32] = []
        for code in [max(n - 1, 0), n, min(n + 1, 7)] where !codes.contains(Int32(code)) {
            codes.append(Int32(code))
        }
        if n <= 1 { codes.append(8) }
        guard set == .nearestForEachStep else { return codes }
        // The levels either side of the sample: n and n+1 beyond level n, else n-1 and n (for n = 0, the
        // other sign's level 0 below).
        let bracket: [Int32] = beyond ? [Int32(n), Int32(min(n + 1, 7))] : n == 0 ? [8, 0] : [Int32(n - 1), Int32(n)]
        let step = { (code: Int32) in IMA.indexTable[Int(code & 7)] }
        return codes.filter { code in
            bracket.contains(code) || !bracket.contains { step($0) == step(code) }
        }
    }

    static let shiftAndAdd = IMAEncoderTables(.shiftAndAdd)
    static let multiply = IMAEncoderTables(.multiply)
}

/// Raw-pointer views of the encoder tables, for hot loops.
struct IMACoder {
    let differences: UnsafeBufferPointer<Int32>
    let midpoints: UnsafeBufferPointer<Int32>
    let nextIndex: UnsafeBufferPointer<UInt8>
    /// Every ``IMAEncoderTables/CandidateSet``'s rows, and how many candidates each row holds.
    let rows: UnsafeBufferPointer<Int32>
    let candidateCounts: [UInt64]

    static func with<R>(_ reconstruction: IMA.Reconstruction, _ body: (IMACoder) throws -> R) rethrows -> R {
        let tables = reconstruction == .shiftAndAdd ? IMAEncoderTables.shiftAndAdd : IMAEncoderTables.multiply
        return try tables.differences.withUnsafeBufferPointer { differences in
            try tables.midpoints.withUnsafeBufferPointer { midpoints in
                try IMA.nextIndexTable.withUnsafeBufferPointer { next in
                    try tables.rows.withUnsafeBufferPointer { rows in
                        try body(
                            IMACoder(
                                differences: differences, midpoints: midpoints, nextIndex: next, rows: rows,
                                candidateCounts: tables.candidateCounts))
                    }
                }
            }
        }
    }

    /// The magnitude (0...7) whose level is nearest to `distance` at a step index: how many of the step index's
    /// midpoints (increasing; the eighth above every distance) twice the distance reaches, eight compared at once.
    @inline(__always)
    func nearestMagnitude(_ distance: Int32, index: Int) -> Int32 {
        let twice = SIMD4<Int32>(repeating: distance &* 2)
        let row = UnsafeRawPointer(midpoints.baseAddress.unsafelyUnwrapped + index << 3)
        let low = row.loadUnaligned(as: SIMD4<Int32>.self)
        let high = row.loadUnaligned(fromByteOffset: 16, as: SIMD4<Int32>.self)
        // The midpoints above, as bytes of all ones (narrowed by saturating packs): the magnitude is the
        // first such byte's place.
        let zero = SIMD4<Int32>(repeating: 0)
        let above = SIMD8<Int32>(
            lowHalf: zero.replacing(with: -1, where: low .> twice),
            highHalf: zero.replacing(with: -1, where: high .> twice))
        let bytes = unsafeBitCast(SIMD8<Int8>(truncatingIfNeeded: above), to: UInt64.self)
        return Int32(truncatingIfNeeded: bytes.trailingZeroBitCount &>> 3)
    }

    /// Applies a code to a decoder state, as the decoder does.
    @inline(__always)
    func apply(_ code: Int32, to state: inout IMAChannelState) {
        let index = Int(state.stepIndex)
        let difference = differences[index << 3 | Int(code & 7)]
        let predictor = code & 8 != 0 ? state.predictor - difference : state.predictor + difference
        state.predictor = min(max(predictor, -32768), 32767)
        state.stepIndex = Int32(nextIndex[index << 4 | Int(code)])
    }

    /// The nearest code for a sample from a state.
    @inline(__always)
    func nearestCode(_ sample: Int32, from state: IMAChannelState) -> Int32 {
        let delta = sample - state.predictor
        let sign: Int32 = delta < 0 ? 8 : 0
        return sign | nearestMagnitude(abs(delta), index: Int(state.stepIndex))
    }

    /// Encodes `count` samples greedily; returns the squared error.
    @inline(__always)
    func encodeGreedy(_ samples: (Int) -> Int32, count: Int, state: inout IMAChannelState, codes: (Int, UInt8) -> Void)
        -> Int64
    {
        var error: Int64 = 0
        for position in 0..<count {
            let sample = samples(position)
            let code = nearestCode(sample, from: state)
            apply(code, to: &state)
            let miss = Int64(sample - state.predictor)
            error += miss * miss
            codes(position, UInt8(code))
        }
        return error
    }
}

/// A beam search over IMA decoder states that keeps step indices apart. At each sample every kept
/// state is expanded by the codes whose levels lie next to the sample (the nearest magnitude and its
/// neighbours, and the other sign near zero; see ``candidates``); candidates that reach the same decoder state are merged
/// (the cheaper stays); then the `width` cheapest by squared error so far are kept, and with them the
/// cheapest state of every step index reached. A state's future depends on its step index far more
/// than on its exact predictor, so those few extra states buy what a beam twice as wide would
/// (BENCHMARKS.md, 2026-11-25).
///
/// Buffers are allocated once, for runs of up to `maximumLength` samples: searching allocates nothing.
/// The buffers are shared by copies of the search, so a search (and the encoder holding it) is used
/// by one thread at a time.
struct IMABeamSearch {
    let width: Int
    let maximumLength: Int
    /// The codes tried from each state: every level near the sample for searches as wide as ``widest``, else
    /// each step index's nearest on either side of the sample (as good a search for a third fewer candidates,
    /// where the widest is about the last hundredth of a decibel).
    let candidates: IMAEncoderTables.CandidateSet
    private let buffers: Buffers

    /// The width of ``IMAEncodingQuality/best``.
    static let widest = 32

    /// The cost of a candidate merged into an earlier one in the same decoder state: above every real
    /// cost (a run's samples times 2^32), and exact as a Double.
    fileprivate static let dead = 0x1p62

    /// States kept at most: the width, and the cheapest of each of the 89 step indices.
    private var capacity: Int { width + 89 }

    init(width: Int, maximumLength: Int) {
        self.width = max(width, 1)
        self.maximumLength = maximumLength
        candidates = width >= Self.widest ? .everyNearLevel : .nearestForEachStep
        buffers = Buffers(capacity: self.width + 89, length: maximumLength)
    }

    /// Searches codes for `count` samples from any of `seeds` (at most 64); returns the seed the best
    /// path starts from, its final state and squared error, writing its codes.
    ///
    /// Each sample goes in phases: every kept state makes its candidates (four lanes at once, stored
    /// in the order they are tried); candidates in the same decoder state are merged, in that order,
    /// into the first (the cheaper one's path stays; the later is marked dead), and each step index's
    /// cheapest (the first to reach its cost) is noted, and for width 6 the six smallest costs are kept
    /// as they go (else the `width`-th smallest cost is found after); the
    /// candidates kept (cheaper than it, a step index's cheapest, or as cheap while places last, in
    /// order) become the next states. A state is one word, (predictor + 32768) << 7 | step index; costs
    /// are Doubles, exact (integers far below 2^53).
    func search(
        _ samples: (Int) -> Int32, count: Int, seeds: UnsafeBufferPointer<IMAChannelState>, coder: IMACoder,
        codes output: (Int, UInt8) -> Void
    ) -> (seed: Int, state: IMAChannelState, cost: Int64) {
        precondition(count <= maximumLength && seeds.count <= capacity)
        // The buffers' pointers as locals: a class's stored properties are checked for exclusive access
        // on every use.
        let b = buffers
        var keys = b.keys, costs = b.costs, nextKeys = b.nextKeys, nextCosts = b.nextCosts
        let candidateKeys = b.candidateKeys, candidateCosts = b.candidateCosts, candidatePaths = b.candidatePaths
        let tags = b.tags, tableMask = b.tableMask, tableShift = b.tableShift
        let bestCosts = b.bestCosts, bestSlots = b.bestSlots
        let history = b.history, scratch = b.scratch, histogram = b.histogram
        let candidateCounts = coder.candidateCounts[candidates.rawValue]
        guard let rows = coder.rows.baseAddress.map({ $0 + candidates.rawValue * IMAEncoderTables.setSize }),
            let differences = coder.differences.baseAddress
        else {
            preconditionFailure("IMA encoder tables")
        }
        var stamp = b.stamp
        defer { b.stamp = stamp }
        let capacity = self.capacity
        let width = self.width
        let dead = Int64(bitPattern: Self.dead.bitPattern)
        var kept = 0
        for seed in seeds {
            keys[kept] = (seed.predictor &+ 32768) << 7 | seed.stepIndex
            costs[kept] = 0
            kept += 1
        }
        for position in 0..<count {
            let sample = samples(position)
            stamp &+= 1
            if stamp == 1 << 24 {
                for index in 0...tableMask { tags[index] = 0 }
                stamp = 1
            }
            // Expansion.
            var made = 0
            let sampleVector = SIMD4<Int32>(repeating: sample)
            // The state's place << 4, in each lane.
            var parent = SIMD4<Int32>(repeating: 0)
            for state in 0..<kept {
                let key = keys[state]
                let predictor = key &>> 7 &- 32768
                let stepIndex = Int(key & 127)
                let delta = sample &- predictor
                let negative = delta &>> 31
                let distance = (delta ^ negative) &- negative
                let nearest = Int(truncatingIfNeeded: coder.nearestMagnitude(distance, index: stepIndex))
                // (index << 3 | n) << 1 | beyond: its low four bits pick the row's candidate count.
                let entry = (stepIndex << 3 | nearest) << 1 | (distance > differences[stepIndex << 3 | nearest] ? 1 : 0)
                let row = UnsafeRawPointer(rows + (entry << 1 | Int(negative & 1)) &* 12)
                var next = SIMD4<Int32>(repeating: predictor) &+ row.loadUnaligned(as: SIMD4<Int32>.self)
                next = next.replacing(with: -32768, where: next .< -32768)
                next = next.replacing(with: 32767, where: next .> 32767)
                let miss = SIMD4<Double>(sampleVector &- next)
                let total = miss * miss + SIMD4<Double>(repeating: Double(bitPattern: UInt64(bitPattern: costs[state])))
                UnsafeMutableRawPointer(candidateKeys + made).storeBytes(
                    of: (next &<< 7) &+ row.loadUnaligned(fromByteOffset: 16, as: SIMD4<Int32>.self),
                    as: SIMD4<Int32>.self)
                UnsafeMutableRawPointer(candidatePaths + made).storeBytes(
                    of: parent | row.loadUnaligned(fromByteOffset: 32, as: SIMD4<Int32>.self), as: SIMD4<Int32>.self)
                parent &+= 16
                UnsafeMutableRawPointer(candidateCosts + made).storeBytes(of: total, as: SIMD4<Double>.self)
                made &+= Int(
                    truncatingIfNeeded: candidateCounts &>> (UInt64(truncatingIfNeeded: entry & 15) &<< 2) & 15)
            }
            // Merging, in the order tried, and each step index's cheapest. Costs are compared as the
            // bits of the Doubles (non-negative: the same order). A table entry is stamp << 40 |
            // candidate << 23 | key.
            var live = made
            let stampTag = UInt64(stamp) << 40
            let match: UInt64 = ~(((1 << 17) - 1) << 23)
            // The six smallest costs of the candidates not merged, as they go (a merge that lowers a
            // cost replaces it).
            var t0 = Self.dead, t1 = t0, t2 = t0, t3 = t0, t4 = t0, t5 = t0
            for candidate in 0..<made {
                let key = candidateKeys[candidate]
                let cost = candidateCosts[candidate]
                let tag = stampTag | UInt64(UInt32(bitPattern: key))
                var hash = Int(truncatingIfNeeded: (UInt32(bitPattern: key) &* 2_654_435_761) &>> tableShift)
                var entry = tags[hash]
                // An entry of another step is free (the usual case, tested first), one of this step holds
                // this key or another.
                var merging = false
                while entry >> 40 == stampTag >> 40 {
                    if entry & match == tag {
                        merging = true
                        break
                    }
                    hash = (hash &+ 1) & tableMask
                    entry = tags[hash]
                }
                let stepIndex = Int(key & 127)
                if merging {
                    let slot = Int(truncatingIfNeeded: entry >> 23) & ((1 << 17) - 1)
                    let slotCost = candidateCosts[slot]
                    if cost < slotCost {
                        let old = Double(bitPattern: UInt64(bitPattern: slotCost))
                        if old <= t5 {
                            // The old cost is among the six: out (one of them; the list shifts down).
                            t0 = t0 >= old ? t1 : t0
                            t1 = t1 >= old ? t2 : t1
                            t2 = t2 >= old ? t3 : t2
                            t3 = t3 >= old ? t4 : t3
                            t4 = t4 >= old ? t5 : t4
                            t5 = Self.dead
                        }
                        Self.insert(Double(bitPattern: UInt64(bitPattern: cost)), into: &t0, &t1, &t2, &t3, &t4, &t5)
                        candidateCosts[slot] = cost
                        candidatePaths[slot] = candidatePaths[candidate]
                        if cost < bestCosts[stepIndex] {
                            bestCosts[stepIndex] = cost
                            bestSlots[stepIndex] = Int32(truncatingIfNeeded: slot)
                        }
                    }
                    candidateCosts[candidate] = dead
                    live &-= 1
                    continue
                }
                tags[hash] = tag | UInt64(candidate) << 23
                Self.insert(Double(bitPattern: UInt64(bitPattern: cost)), into: &t0, &t1, &t2, &t3, &t4, &t5)
                // (A step index none reached yet has `dead`: the keep below puts it back.)
                let current = bestCosts[stepIndex]
                let cheaper = cost < current
                bestCosts[stepIndex] = cheaper ? cost : current
                let previous = bestSlots[stepIndex]
                bestSlots[stepIndex] = cheaper ? Int32(truncatingIfNeeded: candidate) : previous
            }
            // The `width`-th smallest cost (all are kept when there are no more).
            var threshold = dead
            var ties = 0
            if live > width {
                if width == 6 {
                    threshold = Int64(bitPattern: t5.bitPattern)
                    // Those cheaper than the threshold are among the six smallest.
                    ties =
                        6 &- (t0 < t5 ? 1 : 0) &- (t1 < t5 ? 1 : 0) &- (t2 < t5 ? 1 : 0) &- (t3 < t5 ? 1 : 0)
                        &- (t4 < t5 ? 1 : 0)
                } else {
                    var gathered = 0
                    for candidate in 0..<made {
                        let cost = candidateCosts[candidate]
                        scratch[gathered] = cost
                        gathered &+= cost < dead ? 1 : 0
                    }
                    threshold = Self.nthSmallest(
                        width, of: scratch, count: gathered, histogram: histogram, scratch: scratch + gathered)
                    ties = width
                    for candidate in 0..<made {
                        ties &-= Int(
                            truncatingIfNeeded: UInt64(bitPattern: candidateCosts[candidate] &- threshold) >> 63)
                    }
                }
            }
            // Kept, in order: cheaper than the threshold, each step index's cheapest, and those as cheap
            // as the threshold while places last (each step index's cheapest takes none).
            // (Arithmetic rather than conditions: the compiler makes branches of those.)
            let row = history + position * capacity
            kept = 0
            for candidate in 0..<made {
                let key = candidateKeys[candidate]
                let cost = candidateCosts[candidate]
                let slot = Int(truncatingIfNeeded: bestSlots[Int(key & 127)])
                // Each step index reached is unreached again for the next step.
                bestCosts[Int(key & 127)] = dead
                let isBest = (slot ^ candidate) == 0 ? 1 : 0
                let less = Int(truncatingIfNeeded: UInt64(bitPattern: cost &- threshold) >> 63)
                let equal = cost == threshold ? 1 : 0
                let tie = equal & (isBest ^ 1) & Int(truncatingIfNeeded: UInt64(bitPattern: Int64(0 &- ties)) >> 63)
                ties &-= tie
                nextKeys[kept] = key
                nextCosts[kept] = cost
                row[kept] = candidatePaths[candidate]
                kept &+= less | isBest | tie
            }
            swap(&keys, &nextKeys)
            swap(&costs, &nextCosts)
        }
        var best = 0
        for state in 1..<max(kept, 1) where costs[state] < costs[best] { best = state }
        let key = keys[best]
        let cost = Int64(Double(bitPattern: UInt64(bitPattern: costs[best])))
        var state = best
        for position in stride(from: count - 1, through: 0, by: -1) {
            let path = history[position * capacity + state]
            output(position, UInt8(truncatingIfNeeded: path & 15))
            state = Int(path >> 4)
        }
        return (
            seed: state, state: IMAChannelState(predictor: key &>> 7 &- 32768, stepIndex: key & 127), cost: cost
        )
    }

    /// Inserts `cost` into a sorted list of six, without a branch: the k-th smallest after it is
    /// min(t_k, max(t_k-1, cost)).
    @inline(__always)
    private static func insert(
        _ cost: Double, into t0: inout Double, _ t1: inout Double, _ t2: inout Double,
        _ t3: inout Double, _ t4: inout Double, _ t5: inout Double
    ) {
        // (Selects of this shape are single min and max instructions.)
        @inline(__always) func low(_ a: Double, _ b: Double) -> Double { a < b ? a : b }
        @inline(__always) func high(_ a: Double, _ b: Double) -> Double { a > b ? a : b }
        t5 = low(t5, high(cost, t4))
        t4 = low(t4, high(cost, t3))
        t3 = low(t3, high(cost, t2))
        t2 = low(t2, high(cost, t1))
        t1 = low(t1, high(cost, t0))
        t0 = low(t0, cost)
    }

    /// The `n`-th smallest (1-based) of the first `count` values, exactly, with few unpredictable
    /// branches: a histogram of each value's top 8 bits above the smallest finds the bucket holding
    /// it, and only that bucket's values (usually a handful) are selected among.
    private static func nthSmallest(
        _ n: Int, of values: UnsafePointer<Int64>, count: Int,
        histogram: UnsafeMutablePointer<Int32>, scratch: UnsafeMutablePointer<Int64>
    ) -> Int64 {
        var low = values[0]
        var high = values[0]
        for index in 1..<count {
            low = min(low, values[index])
            high = max(high, values[index])
        }
        let span = UInt64(bitPattern: high &- low)
        if span == 0 { return low }
        let shift = UInt64(max(64 - span.leadingZeroBitCount - 8, 0))
        let buckets = Int(span >> shift) + 1
        for bucket in 0..<buckets { histogram[bucket] = 0 }
        for index in 0..<count { histogram[Int(UInt64(bitPattern: values[index] &- low) >> shift)] &+= 1 }
        var below = 0
        var bucket = 0
        while below + Int(histogram[bucket]) < n {
            below += Int(histogram[bucket])
            bucket += 1
        }
        var gathered = 0
        for index in 0..<count {
            let value = values[index]
            scratch[gathered] = value
            gathered &+= Int(UInt64(bitPattern: value &- low) >> shift) == bucket ? 1 : 0
        }
        return quickselect(n - below, of: scratch, count: gathered)
    }

    /// The `n`-th smallest (1-based) of the first `count` values, which it reorders.
    private static func quickselect(_ n: Int, of values: UnsafeMutablePointer<Int64>, count: Int) -> Int64 {
        var low = 0
        var high = count - 1
        let k = n - 1
        while low < high {
            let pivot = values[(low + high) / 2]
            var i = low
            var j = high
            while i <= j {
                while values[i] < pivot { i &+= 1 }
                while values[j] > pivot { j &-= 1 }
                if i <= j {
                    (values[i], values[j]) = (values[j], values[i])
                    i &+= 1
                    j &-= 1
                }
            }
            if k <= j { high = j } else if k >= i { low = i } else { break }
        }
        return values[k]
    }

    /// The search's memory: two layers of states, the candidates of one step, the merge table, each
    /// step index's cheapest candidate, the kept candidates' bits, and each step's paths (parent << 4 |
    /// code) for the way back.
    private final class Buffers: @unchecked Sendable {
        /// The states of the sample being searched, and of the next (costs: a Double's bits).
        let keys, nextKeys: UnsafeMutablePointer<Int32>
        let costs, nextCosts: UnsafeMutablePointer<Int64>
        let candidateKeys, candidatePaths: UnsafeMutablePointer<Int32>
        /// A Double's bits (stored as Doubles by the expansion).
        let candidateCosts: UnsafeMutablePointer<Int64>
        /// The merge table: stamp << 40 | candidate << 23 | key (valid where the stamp is the step's).
        let tags: UnsafeMutablePointer<UInt64>
        let tableMask: Int
        let tableShift: UInt32
        /// Per step index, the cheapest candidate's cost (`dead` between steps), and the candidate.
        let bestCosts: UnsafeMutablePointer<Int64>
        let bestSlots: UnsafeMutablePointer<Int32>
        /// For widths other than 6: the selection's room.
        let scratch: UnsafeMutablePointer<Int64>
        let histogram: UnsafeMutablePointer<Int32>
        var stamp: UInt32 = 0
        let history: UnsafeMutablePointer<Int32>
        private let allocations: [UnsafeMutableRawPointer]

        init(capacity: Int, length: Int) {
            // Each state makes at most four candidates; four lanes are stored past the last.
            let candidates = capacity * 4 + 4
            var allocations: [UnsafeMutableRawPointer] = []
            func make<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
                let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
                allocations.append(UnsafeMutableRawPointer(pointer))
                return pointer
            }
            // The kept states are written one past the last.
            keys = make(Int32.self, capacity + 1)
            nextKeys = make(Int32.self, capacity + 1)
            costs = make(Int64.self, capacity + 1)
            nextCosts = make(Int64.self, capacity + 1)
            candidateKeys = make(Int32.self, candidates)
            candidatePaths = make(Int32.self, candidates)
            candidateCosts = make(Int64.self, candidates)
            // At least four times the candidates' slots.
            var bits = 10
            while 1 << bits < candidates * 4 { bits += 1 }
            tableMask = (1 << bits) - 1
            tableShift = UInt32(32 - bits)
            tags = make(UInt64.self, 1 << bits)
            tags.initialize(repeating: 0, count: 1 << bits)
            bestCosts = make(Int64.self, 128)
            bestCosts.initialize(repeating: Int64(bitPattern: IMABeamSearch.dead.bitPattern), count: 128)
            bestSlots = make(Int32.self, 128)
            bestSlots.initialize(repeating: 0, count: 128)
            scratch = make(Int64.self, 2 * candidates)
            histogram = make(Int32.self, 256)
            history = make(Int32.self, capacity * length + 1)
            self.allocations = allocations
        }

        deinit { for pointer in allocations { pointer.deallocate() } }
    }
}
