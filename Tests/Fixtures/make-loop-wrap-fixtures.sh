#!/usr/bin/env bash
# A loop that wraps seamlessly (issue 71): 1 s of a chord of eight sines at 44.1 kHz, each a whole number of periods
# in the second (220 to 7000 Hz, quieter as they rise, phases spread), so its last frame runs on into its first
# (afkit's loop-seam measure: 6.4 dB, far under its 12); and the same sound with a forward WAV 'smpl' loop over all of
# it, the loop a game engine plays (libsndfile 1.2.0's sf_command(SFC_SET_INSTRUMENT), through Python's ctypes: no
# command-line tool writes a 'smpl' chunk). Tests read the committed files (loops/chord*.wav).
set -euo pipefail
cd "$(dirname "$0")"
rm -f loops/chord.wav loops/chord-loop.wav
python3 - <<'PY'
import math, struct, wave
parts = [(220, .2, 0.0), (330, .15, 0.8), (441, .1, 1.7), (661, .08, 2.6), (1102, .05, 3.5), (2205, .03, 4.3),
         (4410, .02, 5.2), (7000, .01, 6.0)]
out = wave.open("loops/chord.wav", "wb")
out.setnchannels(1), out.setsampwidth(2), out.setframerate(44100)
out.writeframes(b"".join(
    struct.pack("<h", round(32767 * 0.9 * sum(a * math.sin(2 * math.pi * f * i / 44100 + p) for f, a, p in parts)))
    for i in range(44100)))
out.close()
PY
python3 - <<'PY'
import ctypes
from libsndfile_commands import WAV, read_mono16, write_mono16
class Loop(ctypes.Structure):
    _fields_ = [("mode", ctypes.c_int), ("start", ctypes.c_uint32), ("end", ctypes.c_uint32),
                ("count", ctypes.c_uint32)]
class Instrument(ctypes.Structure):
    _fields_ = [("gain", ctypes.c_int), ("basenote", ctypes.c_char), ("detune", ctypes.c_char),
                ("velocity_lo", ctypes.c_char), ("velocity_hi", ctypes.c_char), ("key_lo", ctypes.c_char),
                ("key_hi", ctypes.c_char), ("loop_count", ctypes.c_int), ("loops", Loop * 16)]
SFC_SET_INSTRUMENT, SF_LOOP_FORWARD = 0x10D1, 801
rate, samples = read_mono16("loops/chord.wav")
instrument = Instrument()
instrument.basenote, instrument.velocity_hi, instrument.key_hi = b"\x3c", b"\x7f", b"\x7f"
instrument.loop_count = 1
instrument.loops[0].mode, instrument.loops[0].start, instrument.loops[0].end = SF_LOOP_FORWARD, 0, len(samples)
write_mono16("loops/chord-loop.wav", WAV, rate, samples, SFC_SET_INSTRUMENT, instrument)
PY
