#include <vorbis/codec.h>
#include <vorbis/vorbisenc.h>
