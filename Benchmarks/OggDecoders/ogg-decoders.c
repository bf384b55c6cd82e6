// Decoding speed of the Ogg codecs' engines in process: the reference libraries (libvorbis, libopus) against
// libavcodec's native decoders, on the same packets (read with libogg first, so only decoding is timed), each
// to interleaved float. `make bench` builds and runs it (bench.py's `ogg-decoders` section); the README's
// engine table cites what it finds.
//
//   ogg-decoders FILE.ogg|FILE.opus [RUNS]   prints one JSON line an engine: seconds (best of RUNS), frames
#include <libavcodec/avcodec.h>
#include <ogg/ogg.h>
#include <opus/opus_multistream.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vorbis/codec.h>

typedef struct {
    unsigned char *data;
    long size;
} Packet;

static Packet *packets;
static long count, capacity;

static void keep(const ogg_packet *op) {
    if (count == capacity) {
        capacity = capacity ? capacity * 2 : 4096;
        packets = realloc(packets, capacity * sizeof(Packet));
    }
    packets[count].data = malloc(op->bytes);
    memcpy(packets[count].data, op->packet, op->bytes);
    packets[count].size = op->bytes;
    count++;
}

/// Every packet of the file's first logical stream.
static void readPackets(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); exit(1); }
    ogg_sync_state sync;
    ogg_stream_state stream;
    ogg_page page;
    ogg_packet op;
    int started = 0;
    ogg_sync_init(&sync);
    for (;;) {
        char *buffer = ogg_sync_buffer(&sync, 65536);
        size_t read = fread(buffer, 1, 65536, file);
        ogg_sync_wrote(&sync, (long)read);
        while (ogg_sync_pageout(&sync, &page) == 1) {
            if (!started) { ogg_stream_init(&stream, ogg_page_serialno(&page)); started = 1; }
            if (ogg_page_serialno(&page) != stream.serialno) continue;
            ogg_stream_pagein(&stream, &page);
            while (ogg_stream_packetout(&stream, &op) == 1) keep(&op);
        }
        if (read == 0) break;
    }
    fclose(file);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static float output[8 * 8192];

static long vorbisDecode(void) {
    vorbis_info info;
    vorbis_comment comment;
    vorbis_dsp_state dsp;
    vorbis_block block;
    vorbis_info_init(&info);
    vorbis_comment_init(&comment);
    for (long index = 0; index < 3; index++) {
        ogg_packet op = {packets[index].data, packets[index].size, index == 0, 0, -1, index};
        if (vorbis_synthesis_headerin(&info, &comment, &op) != 0) { fprintf(stderr, "vorbis header\n"); exit(1); }
    }
    vorbis_synthesis_init(&dsp, &info);
    vorbis_block_init(&dsp, &block);
    long frames = 0;
    for (long index = 3; index < count; index++) {
        ogg_packet op = {packets[index].data, packets[index].size, 0, 0, -1, index};
        if (vorbis_synthesis(&block, &op) == 0) vorbis_synthesis_blockin(&dsp, &block);
        float **pcm;
        int made;
        while ((made = vorbis_synthesis_pcmout(&dsp, &pcm)) > 0) {
            for (int frame = 0; frame < made; frame++)
                for (int channel = 0; channel < info.channels; channel++)
                    output[frame * info.channels + channel] = pcm[channel][frame];
            vorbis_synthesis_read(&dsp, made);
            frames += made;
        }
    }
    vorbis_block_clear(&block);
    vorbis_dsp_clear(&dsp);
    vorbis_comment_clear(&comment);
    vorbis_info_clear(&info);
    return frames;
}

static long opusDecode(void) {
    const unsigned char *head = packets[0].data;
    int channels = head[9];
    int family = head[18];
    int streams = 1, coupled = channels == 2;
    unsigned char mapping[255] = {0, 1};
    if (family != 0) {
        streams = head[19];
        coupled = head[20];
        memcpy(mapping, head + 21, channels);
    }
    int error;
    OpusMSDecoder *decoder = opus_multistream_decoder_create(48000, channels, streams, coupled, mapping, &error);
    if (!decoder) { fprintf(stderr, "opus: %d\n", error); exit(1); }
    long frames = 0;
    for (long index = 2; index < count; index++) {
        int made = opus_multistream_decode_float(decoder, packets[index].data, (opus_int32)packets[index].size,
                                                 output, 5760, 0);
        if (made > 0) frames += made;
    }
    opus_multistream_decoder_destroy(decoder);
    return frames;
}

static long libavcodecDecode(int opus) {
    const AVCodec *codec = avcodec_find_decoder(opus ? AV_CODEC_ID_OPUS : AV_CODEC_ID_VORBIS);
    AVCodecContext *context = avcodec_alloc_context3(codec);
    // Extradata: OpusHead, or Vorbis's three headers Xiph-laced.
    unsigned char *extradata;
    long size = 0;
    if (opus) {
        size = packets[0].size;
        extradata = av_mallocz(size + AV_INPUT_BUFFER_PADDING_SIZE);
        memcpy(extradata, packets[0].data, size);
    } else {
        extradata = av_mallocz(packets[0].size + packets[1].size + packets[2].size + 64 + AV_INPUT_BUFFER_PADDING_SIZE);
        extradata[size++] = 2;
        for (int index = 0; index < 2; index++) {
            long length = packets[index].size;
            while (length >= 255) { extradata[size++] = 255; length -= 255; }
            extradata[size++] = (unsigned char)length;
        }
        for (int index = 0; index < 3; index++) {
            memcpy(extradata + size, packets[index].data, packets[index].size);
            size += packets[index].size;
        }
    }
    context->extradata = extradata;
    context->extradata_size = (int)size;
    if (opus) {
        context->sample_rate = 48000;
        av_channel_layout_default(&context->ch_layout, packets[0].data[9]);
    }
    if (avcodec_open2(context, codec, NULL) < 0) { fprintf(stderr, "avcodec_open2\n"); exit(1); }
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    long frames = 0;
    for (long index = opus ? 2 : 3; index < count; index++) {
        packet->data = packets[index].data;
        packet->size = (int)packets[index].size;
        if (avcodec_send_packet(context, packet) < 0) continue;
        while (avcodec_receive_frame(context, frame) == 0) {
            int channels = frame->ch_layout.nb_channels;
            for (int sample = 0; sample < frame->nb_samples; sample++)
                for (int channel = 0; channel < channels; channel++)
                    output[sample * channels + channel] = ((const float *)frame->extended_data[channel])[sample];
            frames += frame->nb_samples;
            av_frame_unref(frame);
        }
    }
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&context);
    return frames;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: ogg-decoders FILE [RUNS]\n"); return 2; }
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    readPackets(argv[1]);
    int opus = count > 0 && packets[0].size >= 8 && memcmp(packets[0].data, "OpusHead", 8) == 0;
    const char *names[2] = {opus ? "libopus" : "libvorbis", opus ? "libavcodec opus" : "libavcodec vorbis"};
    // OGG_DECODERS_ENGINE=0 or 1 runs one engine only (to count its allocations alone).
    const char *only = getenv("OGG_DECODERS_ENGINE");
    for (int engine = 0; engine < 2; engine++) {
        if (only && atoi(only) != engine) continue;
        double best = 1e9;
        long frames = 0;
        for (int run = 0; run < runs; run++) {
            double start = now();
            frames = engine == 0 ? (opus ? opusDecode() : vorbisDecode()) : libavcodecDecode(opus);
            double seconds = now() - start;
            if (seconds < best) best = seconds;
        }
        printf("{\"engine\": \"%s\", \"seconds\": %.4f, \"frames\": %ld, \"packets\": %ld}\n", names[engine], best,
               frames, count);
    }
    return 0;
}
