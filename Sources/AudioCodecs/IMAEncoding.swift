/// How hard an IMA encoder looks for the codes that decode closest to the input.
public enum IMAEncodingQuality: Hashable, Sendable {
    /// Per sample, the code whose reconstruction is nearest (the decoder runs in the loop).
    case fast
    /// A beam search keeping the `width` best decoder states (by squared error so far) at each
    /// sample, modelling the decoder exactly; at each IMA4 packet start it also considers restarting
    /// the decoder through the header.
    case search(width: Int)

    /// The search afkit uses by default for its best quality.
    public static let best = IMAEncodingQuality.search(width: 64)
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

/// A beam search over IMA decoder states. Buffers are allocated once, for runs of up to
/// `maximumLength` samples, so searching does no allocation per packet.
///
/// Each step expands every kept state by the codes whose levels lie next to the sample (the nearest
/// magnitude and its neighbours, and the other sign near zero), merges candidates that reach the same
/// decoder state (keeping the cheaper), and keeps the `width` cheapest by quickselect.
struct IMABeamSearch {
    struct Node {
        var state: IMAChannelState
        var cost: Int64
        var parent: Int32
        var code: UInt8
        var seed: UInt8
    }

    let width: Int
    let maximumLength: Int
    private var current: [Node]
    private var candidates: [Node]
    /// Per sample, per kept node: the node it came from and its code.
    private var parents: [Int32]
    private var codes: [UInt8]
    /// Open-addressing table from decoder state to candidate, valid where `stamps` holds the current stamp.
    private var slots: [Int32]
    private var stamps: [UInt32]
    private var stamp: UInt32 = 0
    private static let tableBits = 11

    init(width: Int, maximumLength: Int) {
        self.width = max(width, 1)
        self.maximumLength = maximumLength
        let empty = Node(state: IMAChannelState(), cost: 0, parent: 0, code: 0, seed: 0)
        current = Array(repeating: empty, count: self.width)
        candidates = Array(repeating: empty, count: self.width * 5 + 64)
        parents = Array(repeating: 0, count: self.width * maximumLength)
        codes = Array(repeating: 0, count: self.width * maximumLength)
        slots = Array(repeating: 0, count: 1 << Self.tableBits)
        stamps = Array(repeating: 0, count: 1 << Self.tableBits)
    }

    /// Searches codes for `count` samples from any of `seeds` (at most 64); returns the seed the best
    /// path starts from, its final state and squared error, writing its codes.
    mutating func search(
        _ samples: (Int) -> Int32, count: Int, seeds: UnsafeBufferPointer<IMAChannelState>, coder: IMACoder,
        codes output: (Int, UInt8) -> Void
    ) -> (seed: Int, state: IMAChannelState, cost: Int64) {
        let width = self.width
        let mask = (1 << Self.tableBits) - 1
        return current.withUnsafeMutableBufferPointer { current in
            candidates.withUnsafeMutableBufferPointer { candidates in
                parents.withUnsafeMutableBufferPointer { parents in
                    codes.withUnsafeMutableBufferPointer { codes in
                        slots.withUnsafeMutableBufferPointer { slots in
                            stamps.withUnsafeMutableBufferPointer { stamps in
                                var kept = 0
                                for (index, seed) in seeds.enumerated() where kept < width {
                                    current[kept] = Node(state: seed, cost: 0, parent: 0, code: 0, seed: UInt8(index))
                                    kept += 1
                                }
                                for position in 0..<count {
                                    let sample = samples(position)
                                    stamp &+= 1
                                    if stamp == 0 {
                                        for index in stamps.indices { stamps[index] = 0 }
                                        stamp = 1
                                    }
                                    var made = 0
                                    @inline(__always) func add(_ node: Node, _ parent: Int, _ code: Int32) {
                                        var state = node.state
                                        coder.apply(code, to: &state)
                                        let miss = Int64(sample - state.predictor)
                                        let cost = node.cost + miss * miss
                                        let key = UInt32(bitPattern: (state.predictor + 32768) << 7 | state.stepIndex)
                                        var slot = Int((key &* 2_654_435_761) >> UInt32(32 - Self.tableBits))
                                        while stamps[slot] == stamp {
                                            let other = Int(slots[slot])
                                            if candidates[other].state == state {
                                                if cost < candidates[other].cost {
                                                    candidates[other] = Node(state: state, cost: cost, parent: Int32(parent),
                                                        code: UInt8(code), seed: node.seed)
                                                }
                                                return
                                            }
                                            slot = (slot + 1) & mask
                                        }
                                        stamps[slot] = stamp
                                        slots[slot] = Int32(made)
                                        candidates[made] = Node(state: state, cost: cost, parent: Int32(parent),
                                            code: UInt8(code), seed: node.seed)
                                        made += 1
                                    }
                                    for parent in 0..<kept {
                                        let node = current[parent]
                                        let delta = sample - node.state.predictor
                                        let sign: Int32 = delta < 0 ? 8 : 0
                                        let nearest = coder.nearestMagnitude(abs(delta), index: Int(node.state.stepIndex))
                                        var magnitude = max(nearest - 1, 0)
                                        while magnitude <= min(nearest + 1, 7) {
                                            add(node, parent, sign | magnitude)
                                            magnitude += 1
                                        }
                                        if nearest <= 1 { add(node, parent, sign ^ 8) }
                                    }
                                    if made > width { Self.selectCheapest(width, of: candidates, count: made) }
                                    kept = min(made, width)
                                    for slot in 0..<kept {
                                        current[slot] = candidates[slot]
                                        parents[position * width + slot] = candidates[slot].parent
                                        codes[position * width + slot] = candidates[slot].code
                                    }
                                }
                                var best = 0
                                for slot in 1..<max(kept, 1) where current[slot].cost < current[best].cost { best = slot }
                                let winner = current[best]
                                var slot = best
                                for position in stride(from: count - 1, through: 0, by: -1) {
                                    output(position, codes[position * width + slot])
                                    slot = Int(parents[position * width + slot])
                                }
                                return (Int(winner.seed), winner.state, winner.cost)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Moves the `k` cheapest of the first `count` nodes to the front (in no order): quickselect.
    private static func selectCheapest(_ k: Int, of nodes: UnsafeMutableBufferPointer<Node>, count: Int) {
        var low = 0
        var high = count - 1
        while low < high {
            let pivot = nodes[(low + high) / 2].cost
            var i = low
            var j = high
            while i <= j {
                while nodes[i].cost < pivot { i += 1 }
                while nodes[j].cost > pivot { j -= 1 }
                if i <= j {
                    nodes.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k - 1 <= j { high = j } else if k - 1 >= i { low = i } else { return }
        }
    }
}
