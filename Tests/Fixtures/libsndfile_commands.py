"""libsndfile 1.2 (Debian's libsndfile1) through ctypes, for the fixture scripts that need what only its
sf_command writes: cue points (SFC_SET_CUE; make-marker-chapter-fixtures.sh) and a 'smpl' loop
(SFC_SET_INSTRUMENT; make-loop-wrap-fixtures.sh). No command-line tool writes either."""
import ctypes

sf = ctypes.CDLL("libsndfile.so.1")
sf.sf_open.restype = ctypes.c_void_p
SFM_READ, SFM_WRITE = 0x10, 0x20
WAV, AIFF, PCM_16 = 0x010000, 0x020000, 0x0002


class Info(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


def read_mono16(path):
    """A mono 16-bit file's rate and samples."""
    info = Info()
    handle = ctypes.c_void_p(sf.sf_open(path.encode(), SFM_READ, ctypes.byref(info)))
    samples = (ctypes.c_short * info.frames)()
    assert sf.sf_readf_short(handle, samples, ctypes.c_int64(info.frames)) == info.frames
    sf.sf_close(handle)
    return info.samplerate, samples


def write_mono16(path, major, rate, samples, command, argument):
    """Writes `samples` (mono, 16-bit) into `path` of type `major`, after sf_command(`command`, `argument`)."""
    info = Info(0, rate, 1, major | PCM_16, 0, 0)
    handle = ctypes.c_void_p(sf.sf_open(path.encode(), SFM_WRITE, ctypes.byref(info)))
    assert sf.sf_command(handle, command, ctypes.byref(argument), ctypes.sizeof(argument)) == 1
    assert sf.sf_writef_short(handle, samples, ctypes.c_int64(len(samples))) == len(samples)
    sf.sf_close(handle)
