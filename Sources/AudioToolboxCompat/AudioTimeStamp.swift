// Apple's AudioTimeStamp and SMPTETime (CoreAudioTypes.h), with the layouts of Apple's headers: the times Audio
// Queue Services take and give (AudioQueueServices.swift).

/// Apple's SMPTETimeType: the kind of SMPTE time (frames a second and drop-frame counting).
public enum SMPTETimeType: UInt32, Hashable, Sendable, BitwiseCopyable {
    /// 24, 25, 30 (drop frame), 30, 29.97, 29.97 (drop frame), 60, 59.94, 60 (drop frame), 59.94 (drop frame), 50
    /// and 23.98 frames a second, in Apple's order.
    case type24 = 0, type25, type30Drop, type30, type2997, type2997Drop, type60, type5994, type60Drop, type5994Drop,
        type50, type2398
}

/// Apple's SMPTETimeFlags.
public struct SMPTETimeFlags: OptionSet, Hashable, Sendable, BitwiseCopyable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags of `rawValue`'s bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The time is valid (`kSMPTETimeValid`).
    public static let valid = SMPTETimeFlags(rawValue: 1 << 0)
    /// The time is running (`kSMPTETimeRunning`).
    public static let running = SMPTETimeFlags(rawValue: 1 << 1)
}

/// Apple's SMPTETime: a time in hours, minutes, seconds and frames, 24 bytes.
public struct SMPTETime: Hashable, Sendable, BitwiseCopyable {
    /// Apple's `mSubframes` field.
    public var mSubframes: Int16
    /// Apple's `mSubframeDivisor` field.
    public var mSubframeDivisor: Int16
    /// Apple's `mCounter` field.
    public var mCounter: UInt32
    /// Apple's `mType` field.
    public var mType: SMPTETimeType
    /// Apple's `mFlags` field.
    public var mFlags: SMPTETimeFlags
    /// Apple's `mHours` field.
    public var mHours: Int16
    /// Apple's `mMinutes` field.
    public var mMinutes: Int16
    /// Apple's `mSeconds` field.
    public var mSeconds: Int16
    /// Apple's `mFrames` field.
    public var mFrames: Int16

    /// Every field zero.
    public init() {
        self.init(
            mSubframes: 0, mSubframeDivisor: 0, mCounter: 0, mType: .type24, mFlags: [], mHours: 0, mMinutes: 0,
            mSeconds: 0, mFrames: 0)
    }

    /// A time of the fields given.
    public init(
        mSubframes: Int16, mSubframeDivisor: Int16, mCounter: UInt32, mType: SMPTETimeType, mFlags: SMPTETimeFlags,
        mHours: Int16, mMinutes: Int16, mSeconds: Int16, mFrames: Int16
    ) {
        (self.mSubframes, self.mSubframeDivisor, self.mCounter) = (mSubframes, mSubframeDivisor, mCounter)
        (self.mType, self.mFlags) = (mType, mFlags)
        (self.mHours, self.mMinutes, self.mSeconds, self.mFrames) = (mHours, mMinutes, mSeconds, mFrames)
    }
}

/// Apple's AudioTimeStampFlags: which fields of an ``AudioTimeStamp`` hold a time.
public struct AudioTimeStampFlags: OptionSet, Hashable, Sendable, BitwiseCopyable {
    /// The flag bits.
    public let rawValue: UInt32
    /// Flags of `rawValue`'s bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// No field is valid (`kAudioTimeStampNothingValid`).
    public static let nothingValid: AudioTimeStampFlags = []
    /// `mSampleTime` is valid (`kAudioTimeStampSampleTimeValid`).
    public static let sampleTimeValid = AudioTimeStampFlags(rawValue: 1 << 0)
    /// `mHostTime` is valid (`kAudioTimeStampHostTimeValid`).
    public static let hostTimeValid = AudioTimeStampFlags(rawValue: 1 << 1)
    /// `mRateScalar` is valid (`kAudioTimeStampRateScalarValid`).
    public static let rateScalarValid = AudioTimeStampFlags(rawValue: 1 << 2)
    /// `mWordClockTime` is valid (`kAudioTimeStampWordClockTimeValid`).
    public static let wordClockTimeValid = AudioTimeStampFlags(rawValue: 1 << 3)
    /// `mSMPTETime` is valid (`kAudioTimeStampSMPTETimeValid`).
    public static let smpteTimeValid = AudioTimeStampFlags(rawValue: 1 << 4)
    /// The sample and host times are valid (`kAudioTimeStampSampleHostTimeValid`).
    public static let sampleHostTimeValid: AudioTimeStampFlags = [.sampleTimeValid, .hostTimeValid]
}

/// Apple's AudioTimeStamp: a time in samples, host ticks, word clock and SMPTE, 64 bytes.
public struct AudioTimeStamp: Hashable, Sendable, BitwiseCopyable {
    /// Apple's `mSampleTime` field.
    public var mSampleTime: Float64
    /// Apple's `mHostTime` field.
    public var mHostTime: UInt64
    /// Apple's `mRateScalar` field.
    public var mRateScalar: Float64
    /// Apple's `mWordClockTime` field.
    public var mWordClockTime: UInt64
    /// Apple's `mSMPTETime` field.
    public var mSMPTETime: SMPTETime
    /// Apple's `mFlags` field.
    public var mFlags: AudioTimeStampFlags
    /// Apple's `mReserved` field.
    public var mReserved: UInt32

    /// Every field zero.
    public init() {
        self.init(
            mSampleTime: 0, mHostTime: 0, mRateScalar: 0, mWordClockTime: 0, mSMPTETime: SMPTETime(), mFlags: [],
            mReserved: 0)
    }

    /// A time stamp of the fields given.
    public init(
        mSampleTime: Float64, mHostTime: UInt64, mRateScalar: Float64, mWordClockTime: UInt64, mSMPTETime: SMPTETime,
        mFlags: AudioTimeStampFlags, mReserved: UInt32
    ) {
        (self.mSampleTime, self.mHostTime, self.mRateScalar) = (mSampleTime, mHostTime, mRateScalar)
        (self.mWordClockTime, self.mSMPTETime) = (mWordClockTime, mSMPTETime)
        (self.mFlags, self.mReserved) = (mFlags, mReserved)
    }
}
