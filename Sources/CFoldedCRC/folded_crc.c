// afkit's one C file for speed (DESIGN: "Parsers stay pure Swift" has this one exception, measured in
// BENCHMARKS.md): Ogg's CRC-32 folded sixteen bytes at a time by carry-less multiplication, which Swift
// cannot reach (Clang's _mm_clmulepi64_si128 is a macro Swift does not import). Every page afkit reads is
// checked against it; the table-driven CRC in AudioFormats stays the reference and the fallback.
//
// The message, most significant bit first, is a polynomial over GF(2); the 128-bit accumulator X holds a
// polynomial congruent to all of it read so far (the CRC it entered with in its top 32 bits). Taking in the
// next block B: X·x^128 + B, where X·x^128 = hi·x^192 + lo·x^128 ≡ hi·(x^192 mod P) + lo·(x^128 mod P), two
// 64 × 32-bit carry-less products under 96 bits. At the end the CRC of X's sixteen bytes from zero is the
// CRC of the whole (the CRC of a polynomial depends only on its class mod P).
#include "folded_crc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define POLYNOMIAL 0x04C11DB7u

/// x^n mod P, the polynomial's 32 coefficients below x^32.
static uint32_t power(unsigned n) {
    uint32_t value = 1;
    for (unsigned step = 0; step < n; step++) {
        value = (value & 0x80000000u) ? (value << 1) ^ POLYNOMIAL : value << 1;
    }
    return value;
}

static uint32_t table[256];

/// The CRC over bytes one at a time (for the last bytes and X's sixteen).
static uint32_t bytewise(uint32_t crc, const uint8_t *bytes, size_t count) {
    for (size_t index = 0; index < count; index++) crc = crc << 8 ^ table[(crc >> 24) ^ bytes[index]];
    return crc;
}

/// x^(n + 64) mod P above, x^n mod P below: multiplying a 128-bit accumulator by x^n, folded.
static __m128i foldBy[4];

int afkit_folded_crc_available(void) {
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3"))) return 0;
    for (uint32_t entry = 0; entry < 256; entry++) {
        uint32_t value = entry << 24;
        for (int bit = 0; bit < 8; bit++) value = (value & 0x80000000u) ? (value << 1) ^ POLYNOMIAL : value << 1;
        table[entry] = value;
    }
    for (int lanes = 1; lanes <= 4; lanes++) {
        foldBy[lanes - 1] = _mm_set_epi64x((long long)power(128 * lanes + 64), (long long)power(128 * lanes));
    }
    return 1;
}

/// `x` multiplied by x^(128 × lanes), folded below 96 bits, plus `next`.
__attribute__((target("pclmul,ssse3"))) static inline __m128i fold(__m128i x, int lanes, __m128i next) {
    const __m128i fromHigh = _mm_clmulepi64_si128(x, foldBy[lanes - 1], 0x11);
    const __m128i fromLow = _mm_clmulepi64_si128(x, foldBy[lanes - 1], 0x00);
    return _mm_xor_si128(_mm_xor_si128(fromHigh, fromLow), next);
}

__attribute__((target("pclmul,ssse3"))) uint32_t afkit_folded_crc32(uint32_t crc, const uint8_t *bytes, size_t count) {
    if (count < 32) return bytewise(crc, bytes, count);
    // Byte order reversed: the first byte becomes the most significant.
    const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#define LOAD(offset) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(bytes + (offset))), reverse)
    __m128i x = _mm_xor_si128(LOAD(0), _mm_set_epi32((int)crc, 0, 0, 0));
    size_t index = 16;
    if (count >= 128) {
        // Four accumulators 64 bytes apart, each folded over 64 bytes (x^512) at a time, then joined.
        __m128i lanes[4] = {x, LOAD(16), LOAD(32), LOAD(48)};
        for (index = 64; index + 64 <= count; index += 64) {
            for (int lane = 0; lane < 4; lane++) lanes[lane] = fold(lanes[lane], 4, LOAD(index + 16 * lane));
        }
        x = fold(fold(fold(lanes[0], 1, lanes[1]), 1, lanes[2]), 1, lanes[3]);
    }
    for (; index + 16 <= count; index += 16) x = fold(x, 1, LOAD(index));
#undef LOAD
    uint8_t folded[16];
    _mm_storeu_si128((__m128i *)folded, _mm_shuffle_epi8(x, reverse));
    return bytewise(bytewise(0, folded, 16), bytes + index, count - index);
}

#else

int afkit_folded_crc_available(void) { return 0; }

uint32_t afkit_folded_crc32(uint32_t crc, const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif
