/// How hard an IMA encoder looks for the codes that decode closest to the input.
public enum IMAEncodingQuality: Hashable, Sendable {
    /// Per sample, the code whose reconstruction is nearest (the decoder runs in the loop).
    case fast
    /// A beam search keeping the `width` best decoder states (by squared error so far) at each
    /// sample, and the best of each step index reached, modelling the decoder exactly; at each IMA4
    /// packet start it also considers restarting the decoder through the header.
    case search(width: Int)

    /// The widest search afkit makes (`--quality best`): the 32 cheapest states and each step index's.
    public static let best = IMAEncodingQuality.search(width: 32)
    /// afkit's default: the cheapest search whose SNR and segmental SNR beat every peer's (FFmpeg's, with
    /// and without `-trellis 8`, SoX's, libsndfile's) by at least 0.3 dB on each test signal: the 8
    /// cheapest states and each step index's (BENCHMARKS.md gives the widths measured).
    public static let balanced = IMAEncodingQuality.search(width: 6)
}

/// The encoder side of the IMA tables: for each step index, twice the midpoints between
/// consecutive reconstruction levels, so the nearest level is found with seven comparisons.
struct IMAEncoderTables {
    let differences: [Int32]
    /// `midpoints[index << 3 | m]` = level(m) + level(m+1), m in 0...6.
    let midpoints: [Int32]

    init(_ reconstruction: IMA.Reconstruction) {
        let differences = IMA.differenceTable(reconstruction)
        self.differences = differences
        midpoints = (0..<89 * 8).map { entry in
            entry & 7 == 7 ? Int32.max : differences[entry] + differences[entry + 1]
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

    static func with<R>(_ reconstruction: IMA.Reconstruction, _ body: (IMACoder) throws -> R) rethrows -> R {
        let tables = reconstruction == .shiftAndAdd ? IMAEncoderTables.shiftAndAdd : IMAEncoderTables.multiply
        return try tables.differences.withUnsafeBufferPointer { differences in
            try tables.midpoints.withUnsafeBufferPointer { midpoints in
                try IMA.nextIndexTable.withUnsafeBufferPointer { next in
                    try body(IMACoder(differences: differences, midpoints: midpoints, nextIndex: next))
                }
            }
        }
    }

    /// The magnitude (0...7) whose level is nearest to `distance` at a step index.
    @inline(__always)
    func nearestMagnitude(_ distance: Int32, index: Int) -> Int32 {
        let twice = distance &* 2
        let base = index << 3
        var magnitude: Int32 = 0
        for m in 0..<7 where twice >= midpoints[base + m] { magnitude = Int32(m) + 1 }
        return magnitude
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
/// neighbours, and the other sign near zero); candidates that reach the same decoder state are merged
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
    private let buffers: Buffers

    /// The merge table's size (slots), well above the candidates of one step.
    fileprivate static let tableBits = 11

    /// States kept at most: the width, and the cheapest of each of the 89 step indices.
    private var capacity: Int { width + 89 }

    init(width: Int, maximumLength: Int) {
        self.width = max(width, 1)
        self.maximumLength = maximumLength
        buffers = Buffers(capacity: self.width + 89, length: maximumLength)
    }

    /// Searches codes for `count` samples from any of `seeds` (at most 64); returns the seed the best
    /// path starts from, its final state and squared error, writing its codes.
    func search(
        _ samples: (Int) -> Int32, count: Int, seeds: UnsafeBufferPointer<IMAChannelState>, coder: IMACoder,
        codes output: (Int, UInt8) -> Void
    ) -> (seed: Int, state: IMAChannelState, cost: Int64) {
        precondition(count <= maximumLength && seeds.count <= capacity)
        // The buffers' pointers as locals: a class's stored properties are checked for exclusive access
        // on every use.
        let b = buffers
        var states = b.states, next = b.nextStates
        let candidatePredictors = b.candidatePredictors, candidateStepIndices = b.candidateStepIndices
        let candidateParents = b.candidateParents, candidateCosts = b.candidateCosts
        let scratch = b.scratch, histogram = b.histogram, candidateCodes = b.candidateCodes, bests = b.bests
        let bestStamps = b.bestStamps, parents = b.parents, codes = b.codes
        let slots = b.slots, slotStamps = b.slotStamps
        let tableMask = (1 << Self.tableBits) - 1
        var stamp = b.stamp
        defer { b.stamp = stamp }
        let capacity = self.capacity
        let width = self.width
        var kept = 0
        for (index, seed) in seeds.enumerated() {
            states.predictors[kept] = seed.predictor
            states.stepIndices[kept] = seed.stepIndex
            states.costs[kept] = 0
            states.seeds[kept] = Int32(index)
            kept += 1
        }
        for position in 0..<count {
            let sample = samples(position)
            stamp &+= 1
            if stamp == 0 {
                for index in 0..<89 { bestStamps[index] = 0 }
                for index in 0...tableMask { slotStamps[index] = 0 }
                stamp = 1
            }
            var made = 0
            for state in 0..<kept {
                let predictor = states.predictors[state]
                let stepIndex = Int(states.stepIndices[state])
                let cost = states.costs[state]
                let delta = sample - predictor
                let sign: Int32 = delta < 0 ? 8 : 0
                let nearest = coder.nearestMagnitude(abs(delta), index: stepIndex)
                @inline(__always) func add(_ code: Int32) {
                    let difference = coder.differences[stepIndex << 3 | Int(code & 7)]
                    let next = min(
                        max(code & 8 != 0 ? predictor &- difference : predictor &+ difference, -32768), 32767)
                    let nextIndex = Int(coder.nextIndex[stepIndex << 4 | Int(code)])
                    let miss = Int64(sample &- next)
                    // Costs stay far below 2^63: a block's samples times 2^32.
                    let total = cost &+ miss &* miss
                    // Merge with a candidate in the same decoder state (open addressing on predictor and step index).
                    let key = UInt32(bitPattern: (next + 32768) << 7 | Int32(nextIndex))
                    var hash = Int((key &* 2_654_435_761) >> UInt32(32 - Self.tableBits))
                    while slotStamps[hash] == stamp {
                        let slot = Int(slots[hash])
                        if candidatePredictors[slot] == next && candidateStepIndices[slot] == Int32(nextIndex) {
                            if total < candidateCosts[slot] {
                                candidateCosts[slot] = total
                                candidateParents[slot] = Int32(state)
                                candidateCodes[slot] = UInt8(code)
                                if total < candidateCosts[Int(bests[nextIndex])] { bests[nextIndex] = Int32(slot) }
                            }
                            return
                        }
                        hash = (hash &+ 1) & tableMask
                    }
                    slotStamps[hash] = stamp
                    slots[hash] = Int32(made)
                    // Without a branch: a stale entry (another step's) always gives way.
                    let current = bests[nextIndex]
                    let stale = bestStamps[nextIndex] != stamp
                    let cheaper = total < candidateCosts[Int(current)]
                    bestStamps[nextIndex] = stamp
                    bests[nextIndex] = stale || cheaper ? Int32(made) : current
                    candidatePredictors[made] = next
                    candidateStepIndices[made] = Int32(nextIndex)
                    candidateCosts[made] = total
                    candidateParents[made] = Int32(state)
                    candidateCodes[made] = UInt8(code)
                    made &+= 1
                }
                // The nearest magnitude and its neighbours, a fixed three (at 0 or 7 one repeats, and
                // merges with itself), then the other sign near zero.
                add(sign | max(nearest - 1, 0))
                add(sign | nearest)
                add(sign | min(nearest + 1, 7))
                if nearest <= 1 { add(sign ^ 8) }
            }
            // Keep the `width` cheapest (ties while places last) and each step index's cheapest.
            var threshold = Int64.max
            var ties = made
            if made > width {
                let selected = Self.nthSmallest(
                    width, of: candidateCosts, count: made, histogram: histogram, scratch: scratch)
                threshold = selected.value
                ties = width - selected.below
            }
            let history = position * capacity
            kept = 0
            for slot in 0..<made {
                let cost = candidateCosts[slot]
                var keep = cost < threshold || Int(bests[Int(candidateStepIndices[slot])]) == slot
                if !keep && cost == threshold && ties > 0 {
                    keep = true
                    ties -= 1
                }
                guard keep else { continue }
                let parent = Int(candidateParents[slot])
                next.predictors[kept] = candidatePredictors[slot]
                next.stepIndices[kept] = candidateStepIndices[slot]
                next.costs[kept] = cost
                next.seeds[kept] = states.seeds[parent]
                parents[history + kept] = Int32(parent)
                codes[history + kept] = candidateCodes[slot]
                kept += 1
            }
            swap(&states, &next)
        }
        var best = 0
        for state in 1..<max(kept, 1) where states.costs[state] < states.costs[best] { best = state }
        let winner = (
            seed: Int(states.seeds[best]),
            state: IMAChannelState(predictor: states.predictors[best], stepIndex: states.stepIndices[best]),
            cost: states.costs[best]
        )
        var state = best
        for position in stride(from: count - 1, through: 0, by: -1) {
            output(position, codes[position * capacity + state])
            state = Int(parents[position * capacity + state])
        }
        return winner
    }

    /// The `n`-th smallest (1-based) of the first `count` values, exactly, and how many values are
    /// smaller, with few unpredictable branches: a histogram of each value's top 8 bits above the
    /// smallest finds the bucket holding it, and only that bucket's values (usually a handful) are
    /// selected among.
    private static func nthSmallest(
        _ n: Int, of values: UnsafePointer<Int64>, count: Int,
        histogram: UnsafeMutablePointer<Int32>, scratch: UnsafeMutablePointer<Int64>
    ) -> (value: Int64, below: Int) {
        var low = values[0]
        var high = values[0]
        for index in 1..<count {
            low = min(low, values[index])
            high = max(high, values[index])
        }
        let span = UInt64(bitPattern: high &- low)
        if span == 0 { return (low, 0) }
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
        let value = quickselect(n - below, of: scratch, count: gathered)
        // The bucket's values below the chosen one join those of the buckets before it.
        for index in 0..<gathered { below &+= scratch[index] < value ? 1 : 0 }
        return (value, below)
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

    /// One sample's decoder states: predictor, step index, the seed its path starts from, and its cost.
    private struct Layer {
        let predictors, stepIndices, seeds: UnsafeMutablePointer<Int32>
        let costs: UnsafeMutablePointer<Int64>
    }

    /// The search's memory: two layers of states, the candidates of one step, the merge table, each
    /// step index's cheapest candidate, and each step's parents and codes for the way back.
    private final class Buffers: @unchecked Sendable {
        /// The states of the sample being searched, and of the next: each layer's arrays in one struct.
        let states, nextStates: Layer
        let candidatePredictors, candidateStepIndices, candidateParents: UnsafeMutablePointer<Int32>
        let candidateCosts, scratch: UnsafeMutablePointer<Int64>
        /// Bucket counts for the selection of the cheapest.
        let histogram: UnsafeMutablePointer<Int32>
        let candidateCodes: UnsafeMutablePointer<UInt8>
        /// Per step index, the cheapest candidate (valid where `bestStamps` holds the step's stamp).
        let bests: UnsafeMutablePointer<Int32>
        let bestStamps: UnsafeMutablePointer<UInt32>
        /// The merge table: candidate per slot, valid where `slotStamps` holds the step's stamp.
        let slots: UnsafeMutablePointer<Int32>
        let slotStamps: UnsafeMutablePointer<UInt32>
        var stamp: UInt32 = 0
        let parents: UnsafeMutablePointer<Int32>
        let codes: UnsafeMutablePointer<UInt8>
        private let allocations: [UnsafeMutableRawPointer]

        init(capacity: Int, length: Int) {
            // Each state makes at most four candidates.
            let candidates = capacity * 4
            var allocations: [UnsafeMutableRawPointer] = []
            func make<T>(_ type: T.Type, _ count: Int) -> UnsafeMutablePointer<T> {
                let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
                allocations.append(UnsafeMutableRawPointer(pointer))
                return pointer
            }
            func layer() -> Layer {
                Layer(
                    predictors: make(Int32.self, capacity), stepIndices: make(Int32.self, capacity),
                    seeds: make(Int32.self, capacity), costs: make(Int64.self, capacity))
            }
            states = layer()
            nextStates = layer()
            candidatePredictors = make(Int32.self, candidates)
            candidateStepIndices = make(Int32.self, candidates)
            candidateParents = make(Int32.self, candidates)
            candidateCosts = make(Int64.self, candidates)
            scratch = make(Int64.self, candidates)
            histogram = make(Int32.self, 256)
            candidateCodes = make(UInt8.self, candidates)
            bests = make(Int32.self, 89)
            bests.initialize(repeating: 0, count: 89)
            bestStamps = make(UInt32.self, 89)
            bestStamps.initialize(repeating: 0, count: 89)
            slots = make(Int32.self, 1 << IMABeamSearch.tableBits)
            slotStamps = make(UInt32.self, 1 << IMABeamSearch.tableBits)
            slotStamps.initialize(repeating: 0, count: 1 << IMABeamSearch.tableBits)
            parents = make(Int32.self, capacity * length)
            codes = make(UInt8.self, capacity * length)
            self.allocations = allocations
        }

        deinit { for pointer in allocations { pointer.deallocate() } }

    }
}
