// zlib, the reference inflater the tests read afkit's PNG pictures with (never linked into afkit).
#include <zlib.h>
