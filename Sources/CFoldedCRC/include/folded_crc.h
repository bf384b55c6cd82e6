#ifndef AFKIT_FOLDED_CRC_H
#define AFKIT_FOLDED_CRC_H

#include <stddef.h>
#include <stdint.h>

/// Whether this machine folds CRCs by carry-less multiplication (x86-64 with PCLMULQDQ and SSSE3).
int afkit_folded_crc_available(void);

/// Ogg's CRC-32 (polynomial 0x04C11DB7, most significant bit first, no reflection, no final xor) of `count`
/// bytes, continuing from `crc`, sixteen bytes a carry-less fold; only when `afkit_folded_crc_available()`.
uint32_t afkit_folded_crc32(uint32_t crc, const uint8_t *bytes, size_t count);

/// FLAC's CRC-16 (polynomial 0x8005, most significant bit first, no reflection, no final xor) of `count` bytes,
/// continuing from `crc`; only when `afkit_folded_crc_available()`.
uint16_t afkit_folded_crc16(uint16_t crc, const uint8_t *bytes, size_t count);

#endif
