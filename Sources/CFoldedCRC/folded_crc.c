// afkit's one C file for speed (the parsers stay Swift; this exception is measured in BENCHMARKS.md): the
// CRCs the containers check over every byte, Ogg's CRC-32 and FLAC's CRC-16, folded sixteen bytes at a time by
// carry-less multiplication, which Swift cannot reach (Clang's _mm_clmulepi64_si128 is a macro Swift does not
// import). The table-driven CRCs in AudioFormats stay the reference and the fallback.
//
// The message, most significant bit first, is a polynomial over GF(2); the 128-bit accumulator X holds a
// polynomial congruent to all of it read so far (the CRC it entered with in its top 32 bits). Taking in the
// next block B: X·x^128 + B, where X·x^128 = hi·x^192 + lo·x^128 ≡ hi·(x^192 mod P) + lo·(x^128 mod P), two
// 64-bit by 32-bit (or 16-bit) carry-less products under 96 bits. At the end the CRC of X's sixteen bytes from zero is the
// CRC of the whole (the CRC of a polynomial depends only on its class mod P).
#include "folded_crc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/// One CRC (most significant bit first, no reflection, no final xor): its width and polynomial, a table
/// for bytes one at a time, and the fold constants: x^(128k + 64) mod P above, x^(128k) mod P below, for
/// multiplying a 128-bit accumulator by x^(128k), k = 1...4.
typedef struct {
    int width;
    uint32_t polynomial;
    uint32_t table[256];
    __m128i foldBy[4];
} Kind;

static Kind ogg = {32, 0x04C11DB7u, {0}, {{0}}};
static Kind flac = {16, 0x8005u, {0}, {{0}}};

static uint32_t mask(const Kind *kind) { return kind->width == 32 ? 0xFFFFFFFFu : (1u << kind->width) - 1; }

/// x^n mod P, the polynomial's coefficients below x^width.
static uint32_t power(const Kind *kind, unsigned n) {
    const uint32_t top = 1u << (kind->width - 1);
    uint32_t value = 1;
    for (unsigned step = 0; step < n; step++) {
        value = ((value & top) ? (value << 1) ^ kind->polynomial : value << 1) & mask(kind);
    }
    return value;
}

static void prepare(Kind *kind) {
    const uint32_t top = 1u << (kind->width - 1);
    for (uint32_t entry = 0; entry < 256; entry++) {
        uint32_t value = entry << (kind->width - 8);
        for (int bit = 0; bit < 8; bit++) value = ((value & top) ? (value << 1) ^ kind->polynomial : value << 1) & mask(kind);
        kind->table[entry] = value;
    }
    for (int lanes = 1; lanes <= 4; lanes++) {
        kind->foldBy[lanes - 1] =
            _mm_set_epi64x((long long)power(kind, 128 * lanes + 64), (long long)power(kind, 128 * lanes));
    }
}

/// The CRC over bytes one at a time (for the last bytes and X's sixteen).
static uint32_t bytewise(const Kind *kind, uint32_t crc, const uint8_t *bytes, size_t count) {
    const int shift = kind->width - 8;
    for (size_t index = 0; index < count; index++) {
        crc = ((crc << 8) ^ kind->table[((crc >> shift) ^ bytes[index]) & 0xFF]) & mask(kind);
    }
    return crc;
}

int afkit_folded_crc_available(void) {
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3"))) return 0;
    prepare(&ogg);
    prepare(&flac);
    return 1;
}

/// `x` multiplied by x^(128 × lanes), folded below 96 bits, plus `next`.
__attribute__((target("pclmul,ssse3"))) static inline __m128i fold(const Kind *kind, __m128i x, int lanes, __m128i next) {
    const __m128i fromHigh = _mm_clmulepi64_si128(x, kind->foldBy[lanes - 1], 0x11);
    const __m128i fromLow = _mm_clmulepi64_si128(x, kind->foldBy[lanes - 1], 0x00);
    return _mm_xor_si128(_mm_xor_si128(fromHigh, fromLow), next);
}

__attribute__((target("pclmul,ssse3"))) static uint32_t folded(const Kind *kind, uint32_t crc, const uint8_t *bytes,
                                                              size_t count) {
    if (count < 32) return bytewise(kind, crc, bytes, count);
    // Byte order reversed: the first byte becomes the most significant.
    const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#define LOAD(offset) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(bytes + (offset))), reverse)
    // The CRC so far enters the top bits of the first block.
    __m128i x = _mm_xor_si128(LOAD(0), _mm_set_epi32((int)(crc << (32 - kind->width)), 0, 0, 0));
    size_t index = 16;
    if (count >= 128) {
        // Four accumulators 64 bytes apart, each folded over 64 bytes (x^512) at a time, then joined.
        __m128i lanes[4] = {x, LOAD(16), LOAD(32), LOAD(48)};
        for (index = 64; index + 64 <= count; index += 64) {
            for (int lane = 0; lane < 4; lane++) lanes[lane] = fold(kind, lanes[lane], 4, LOAD(index + 16 * lane));
        }
        x = fold(kind, fold(kind, fold(kind, lanes[0], 1, lanes[1]), 1, lanes[2]), 1, lanes[3]);
    }
    for (; index + 16 <= count; index += 16) x = fold(kind, x, 1, LOAD(index));
#undef LOAD
    uint8_t accumulated[16];
    _mm_storeu_si128((__m128i *)accumulated, _mm_shuffle_epi8(x, reverse));
    return bytewise(kind, bytewise(kind, 0, accumulated, 16), bytes + index, count - index);
}

uint32_t afkit_folded_crc32(uint32_t crc, const uint8_t *bytes, size_t count) {
    return folded(&ogg, crc, bytes, count);
}

uint16_t afkit_folded_crc16(uint16_t crc, const uint8_t *bytes, size_t count) {
    return (uint16_t)folded(&flac, crc, bytes, count);
}

#else

int afkit_folded_crc_available(void) { return 0; }

uint32_t afkit_folded_crc32(uint32_t crc, const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

uint16_t afkit_folded_crc16(uint16_t crc, const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif
