// The C side of JQCJPEG (issue 8): every libjpeg call that may fail runs here, under a setjmp taken
// in the same C function. libjpeg's error_exit and our warning classifier longjmp back to it; no
// longjmp ever crosses a Swift frame (STYLE.md pitfalls).
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jpeglib.h>
#include <jerror.h>
#include "jqc_jpeg_shim.h"

// MARK: - Error manager

struct jqc_error_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int scanning;          // 1 once scan decoding has begun (after jpeg_read_header returned)
    int kind;              // jqc_jpeg_kind of the failure that longjmp'ed
    int msg_code;
    int tolerated;
    int first_tolerated_code;
    char message[JMSG_LENGTH_MAX];
    char tolerated_message[JMSG_LENGTH_MAX];
};

static void jqc_fail(j_common_ptr cinfo, int kind) {
    struct jqc_error_mgr *err = (struct jqc_error_mgr *)cinfo->err;
    err->kind = kind;
    err->msg_code = err->pub.msg_code;
    err->message[0] = 0;
    (*err->pub.format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void jqc_error_exit(j_common_ptr cinfo) {
    int kind = JQC_JPEG_CORRUPT;
    switch (cinfo->err->msg_code) {
    case JERR_BAD_PRECISION: kind = JQC_JPEG_PRECISION; break;
    case JERR_IMAGE_TOO_BIG: kind = JQC_JPEG_TOO_BIG; break;
    case JERR_NO_SOI: case JERR_INPUT_EMPTY: kind = JQC_JPEG_NOT_JPEG; break;
    case JERR_OUT_OF_MEMORY: kind = JQC_JPEG_NO_MEMORY; break;
    default: break;
    }
    jqc_fail(cinfo, kind);
}

/// Warnings (msg_level -1) are judged by code: the ones that mean damaged pixels stop decoding at once;
/// header oddities are counted and tolerated. Trace messages (msg_level >= 0) are ignored.
static void jqc_emit_message(j_common_ptr cinfo, int msg_level) {
    struct jqc_error_mgr *err = (struct jqc_error_mgr *)cinfo->err;
    if (msg_level >= 0) return;
    int code = err->pub.msg_code;
    switch (code) {
    case JWRN_JPEG_EOF:
        jqc_fail(cinfo, JQC_JPEG_TRUNCATED);
        return;
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_BOGUS_PROGRESSION:
#if defined(C_ARITH_CODING_SUPPORTED) || defined(D_ARITH_CODING_SUPPORTED)
    case JWRN_ARITH_BAD_CODE:
#endif
        jqc_fail(cinfo, JQC_JPEG_DAMAGED);
        return;
    case JWRN_EXTRANEOUS_DATA: {
        int marker = err->pub.msg_parm.i[1];
        int restart_or_end = (marker >= 0xD0 && marker <= 0xD7) || marker == 0xD9;
        if (err->scanning || restart_or_end) {
            jqc_fail(cinfo, JQC_JPEG_DAMAGED);
            return;
        }
        break;
    }
    default:
        break;
    }
    err->pub.num_warnings++;
    if (err->tolerated++ == 0) {
        err->first_tolerated_code = code;
        err->tolerated_message[0] = 0;
        (*err->pub.format_message)(cinfo, err->tolerated_message);
    }
}

static void jqc_error_init(struct jqc_error_mgr *err) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = jqc_error_exit;
    err->pub.emit_message = jqc_emit_message;
    err->scanning = 0;
    err->kind = JQC_JPEG_OK;
    err->msg_code = -1;
    err->tolerated = 0;
    err->first_tolerated_code = -1;
    err->message[0] = 0;
    err->tolerated_message[0] = 0;
}

static void jqc_status_clear(jqc_jpeg_status *status) {
    if (!status) return;
    memset(status, 0, sizeof *status);
    status->msg_code = -1;
    status->first_tolerated_code = -1;
}

static int jqc_status_fill(jqc_jpeg_status *status, const struct jqc_error_mgr *err, int kind) {
    if (!status) return kind;
    status->kind = kind;
    status->msg_code = kind == JQC_JPEG_OK ? -1 : err->msg_code;
    status->tolerated_warnings = err->tolerated;
    status->first_tolerated_code = err->first_tolerated_code;
    if (kind == JQC_JPEG_OK) {
        status->message[0] = 0;
    } else {
        snprintf(status->message, sizeof status->message, "%s", err->message);
    }
    snprintf(status->tolerated_message, sizeof status->tolerated_message, "%s", err->tolerated_message);
    return kind;
}

static int jqc_status_simple(jqc_jpeg_status *status, int kind, const char *message) {
    jqc_status_clear(status);
    if (status) {
        status->kind = kind;
        snprintf(status->message, sizeof status->message, "%s", message);
    }
    return kind;
}


/// Records a failure judged outside libjpeg (a short read, a refused size) as if libjpeg had raised it.
static int jqc_err_set(struct jqc_error_mgr *err, int kind, const char *message) {
    err->kind = kind;
    err->msg_code = -1;
    snprintf(err->message, sizeof err->message, "%s", message);
    return kind;
}

// MARK: - Decoder

struct jqc_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jqc_error_mgr err;
    const unsigned char *data;
    size_t length;
    int header_read;
    int prepared;
    int out_width;
    int out_height;
    int out_channels;
    int convert_cmyk;
};

jqc_decoder *jqc_decoder_create(const unsigned char *data, size_t length) {
    jqc_decoder *volatile decoder = calloc(1, sizeof(jqc_decoder));
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->length = length;
    jqc_error_init(&decoder->err);
    decoder->cinfo.err = &decoder->err.pub;
    if (setjmp(decoder->err.jump)) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    return decoder;
}

void jqc_decoder_destroy(jqc_decoder *decoder) {
    if (!decoder) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

int jqc_decoder_read_header(jqc_decoder *decoder, jqc_jpeg_header *header, jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!decoder || !header) return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "No decoder.");
    memset(header, 0, sizeof *header);
    if (decoder->header_read) return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Header already read.");
    if (decoder->length == 0) {
        return jqc_status_simple(status, JQC_JPEG_NOT_JPEG, "Empty input file");
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->err.jump)) {
        // Whatever get_sof saw before the failure (e.g. a 12-bit precision) is still reported.
        header->width = (int)cinfo->image_width;
        header->height = (int)cinfo->image_height;
        header->data_precision = cinfo->data_precision;
        header->components = cinfo->num_components;
        jpeg_abort_decompress(cinfo);
        return jqc_status_fill(status, &decoder->err, decoder->err.kind);
    }
    decoder->err.scanning = 0;
    jpeg_mem_src(cinfo, decoder->data, (unsigned long)decoder->length);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    (void)jpeg_read_header(cinfo, TRUE);
    decoder->header_read = 1;
    header->width = (int)cinfo->image_width;
    header->height = (int)cinfo->image_height;
    header->components = cinfo->num_components;
    header->color_space = (int)cinfo->jpeg_color_space;
    header->data_precision = cinfo->data_precision;
    header->progressive = cinfo->progressive_mode ? 1 : 0;
    header->arithmetic = cinfo->arith_code ? 1 : 0;
    header->saw_adobe_marker = cinfo->saw_Adobe_marker ? 1 : 0;
    header->adobe_transform = cinfo->Adobe_transform;
    int count = 0;
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1) count++;
    }
    header->app1_count = count;
    return jqc_status_fill(status, &decoder->err, JQC_JPEG_OK);
}

int jqc_decoder_app1(jqc_decoder *decoder, int index, const unsigned char **data, size_t *length) {
    if (!decoder || !decoder->header_read || !data || !length) return 0;
    int seen = 0;
    for (jpeg_saved_marker_ptr m = decoder->cinfo.marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1) continue;
        if (seen++ == index) {
            *data = m->data;
            *length = m->data_length;
            return 1;
        }
    }
    return 0;
}

int jqc_decoder_quant_table(jqc_decoder *decoder, int slot, unsigned short values[64]) {
    if (!decoder || !decoder->header_read || slot < 0 || slot >= NUM_QUANT_TBLS || !values) return 0;
    JQUANT_TBL *table = decoder->cinfo.quant_tbl_ptrs[slot];
    if (!table) return 0;
    for (int i = 0; i < DCTSIZE2; i++) values[i] = table->quantval[i];
    return 1;
}

int jqc_decoder_prepare(jqc_decoder *decoder, int scale_denom, int *out_width, int *out_height,
                        int *out_channels, jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!decoder || !decoder->header_read || decoder->prepared) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Read the header once before preparing.");
    }
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "The scale denominator must be 1, 2, 4 or 8.");
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->err.jump)) {
        jpeg_abort_decompress(cinfo);
        return jqc_status_fill(status, &decoder->err, decoder->err.kind);
    }
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)scale_denom;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        decoder->out_channels = 1;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        decoder->out_channels = 3;
        decoder->convert_cmyk = 1;
        break;
    default:
        cinfo->out_color_space = JCS_RGB;
        decoder->out_channels = 3;
        break;
    }
    jpeg_calc_output_dimensions(cinfo);
    decoder->out_width = (int)cinfo->output_width;
    decoder->out_height = (int)cinfo->output_height;
    decoder->prepared = 1;
    if (out_width) *out_width = decoder->out_width;
    if (out_height) *out_height = decoder->out_height;
    if (out_channels) *out_channels = decoder->out_channels;
    return jqc_status_fill(status, &decoder->err, JQC_JPEG_OK);
}


/// CMYK JPEG samples are read as Adobe-inverted (stored 255 − ink, so 255 is no ink) whether or not an
/// Adobe APP14 marker is present, as browsers and Pillow do (issue 18): plain-CMYK writers that omit the
/// marker are rarer than Photoshop-style files that lost it, and reading them the other way round turned
/// solid red into a near-black negative. Each channel is then (255 − C)(255 − K)/255 = C'·K'/255.
static void jqc_cmyk_row_to_rgb(const JSAMPLE *cmyk, unsigned char *rgb, int width) {
    for (int x = 0; x < width; x++) {
        unsigned int c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        rgb[3 * x] = (unsigned char)((c * k + 127) / 255);
        rgb[3 * x + 1] = (unsigned char)((m * k + 127) / 255);
        rgb[3 * x + 2] = (unsigned char)((y * k + 127) / 255);
    }
}

// MARK: - libjpeg calls, each under its own setjmp
//
// Every wrapper takes the setjmp of the object it drives in its own frame, so a failure longjmps only
// within the C frames of the thread that made the call. After a failure the object may only be aborted
// or destroyed.

static int jqc_dec_start(jqc_decoder *decoder) {
    if (setjmp(decoder->err.jump)) return decoder->err.kind;
    decoder->err.scanning = 1;
    (void)jpeg_start_decompress(&decoder->cinfo);
    return JQC_JPEG_OK;
}

/// Reads exactly `count` scanlines into `rows`.
static int jqc_dec_rows(jqc_decoder *decoder, JSAMPROW *rows, JDIMENSION count) {
    if (setjmp(decoder->err.jump)) return decoder->err.kind;
    JDIMENSION done = 0;
    while (done < count) {
        JDIMENSION got = jpeg_read_scanlines(&decoder->cinfo, rows + done, count - done);
        if (got == 0) return jqc_err_set(&decoder->err, JQC_JPEG_TRUNCATED, "Premature end of JPEG file");
        done += got;
    }
    return JQC_JPEG_OK;
}

/// Reads one iMCU row of downsampled planes (`lines` = max_v_samp_factor × DCTSIZE scanlines).
static int jqc_dec_raw(jqc_decoder *decoder, JSAMPIMAGE planes, JDIMENSION lines) {
    if (setjmp(decoder->err.jump)) return decoder->err.kind;
    if (jpeg_read_raw_data(&decoder->cinfo, planes, lines) == 0) {
        return jqc_err_set(&decoder->err, JQC_JPEG_TRUNCATED, "Premature end of JPEG file");
    }
    return JQC_JPEG_OK;
}

static int jqc_dec_finish(jqc_decoder *decoder) {
    if (setjmp(decoder->err.jump)) return decoder->err.kind;
    (void)jpeg_finish_decompress(&decoder->cinfo);
    return JQC_JPEG_OK;
}

int jqc_decoder_decode(jqc_decoder *decoder, unsigned char *buffer, size_t size, jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!decoder || !decoder->prepared || !buffer) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Prepare the decoder and pass a buffer.");
    }
    size_t row_bytes = (size_t)decoder->out_width * (size_t)decoder->out_channels;
    if (size < row_bytes * (size_t)decoder->out_height) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "The output buffer is too small.");
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    int kind = jqc_dec_start(decoder);
    if (kind == JQC_JPEG_OK
        && ((int)cinfo->output_width != decoder->out_width || (int)cinfo->output_height != decoder->out_height)) {
        kind = jqc_err_set(&decoder->err, JQC_JPEG_BAD_ARGUMENT, "The output size changed after preparing.");
    }
    JSAMPARRAY scratch = NULL;
    if (kind == JQC_JPEG_OK && decoder->convert_cmyk) {
        scratch = malloc(sizeof(JSAMPROW) + (size_t)decoder->out_width * 4);
        if (!scratch) kind = jqc_err_set(&decoder->err, JQC_JPEG_NO_MEMORY, "Could not allocate a scanline.");
        else scratch[0] = (JSAMPROW)(scratch + 1);
    }
    JSAMPROW rows[16];
    while (kind == JQC_JPEG_OK && cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION first = cinfo->output_scanline;
        JDIMENSION count = cinfo->output_height - first;
        if (scratch) {
            kind = jqc_dec_rows(decoder, scratch, 1);
            if (kind == JQC_JPEG_OK) jqc_cmyk_row_to_rgb(scratch[0], buffer + first * row_bytes, decoder->out_width);
            continue;
        }
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = buffer + (size_t)(first + i) * row_bytes;
        kind = jqc_dec_rows(decoder, rows, count);
    }
    free(scratch);
    if (kind == JQC_JPEG_OK) kind = jqc_dec_finish(decoder);
    if (kind != JQC_JPEG_OK) jpeg_abort_decompress(cinfo);
    return jqc_status_fill(status, &decoder->err, kind);
}

// MARK: - Encoder

struct jqc_dest_mgr {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t capacity;
    size_t max_bytes;
    size_t length;
};

struct jqc_encoder {
    struct jpeg_compress_struct cinfo;
    struct jqc_error_mgr err;
    struct jqc_dest_mgr dest;
    int created;
};

static void jqc_dest_init(j_compress_ptr cinfo) {
    struct jqc_dest_mgr *dest = (struct jqc_dest_mgr *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean jqc_dest_empty(j_compress_ptr cinfo) {
    struct jqc_dest_mgr *dest = (struct jqc_dest_mgr *)cinfo->dest;
    struct jqc_error_mgr *err = (struct jqc_error_mgr *)cinfo->err;
    size_t old = dest->capacity;
    size_t grown = old * 2;
    if (dest->max_bytes && grown > dest->max_bytes) grown = dest->max_bytes;
    if (grown <= old) {
        err->kind = JQC_JPEG_OUTPUT_TOO_BIG;
        err->msg_code = -1;
        snprintf(err->message, sizeof err->message, "The encoded JPEG would exceed %zu bytes", dest->max_bytes);
        longjmp(err->jump, 1);
    }
    unsigned char *bigger = realloc(dest->buffer, grown);
    if (!bigger) {
        err->kind = JQC_JPEG_NO_MEMORY;
        err->msg_code = -1;
        snprintf(err->message, sizeof err->message, "Could not allocate %zu bytes for the output", grown);
        longjmp(err->jump, 1);
    }
    dest->buffer = bigger;
    dest->capacity = grown;
    dest->pub.next_output_byte = bigger + old;
    dest->pub.free_in_buffer = grown - old;
    return TRUE;
}

static void jqc_dest_term(j_compress_ptr cinfo) {
    struct jqc_dest_mgr *dest = (struct jqc_dest_mgr *)cinfo->dest;
    dest->length = dest->capacity - dest->pub.free_in_buffer;
}

/// An encoder writing into a growing malloc'ed buffer that starts at about an eighth of the raw samples
/// (a quality-80 photo is usually smaller), never above 64 MiB or `max_bytes`. NULL when out of memory.
static struct jqc_encoder *jqc_encoder_new(size_t sample_bytes, size_t max_bytes) {
    struct jqc_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) return NULL;
    size_t initial = sample_bytes / 8 + 4096;
    if (initial > ((size_t)64 << 20)) initial = (size_t)64 << 20;
    if (max_bytes && initial > max_bytes) initial = max_bytes;
    encoder->dest.buffer = malloc(initial);
    if (!encoder->dest.buffer) {
        free(encoder);
        return NULL;
    }
    encoder->dest.capacity = initial;
    encoder->dest.max_bytes = max_bytes;
    encoder->dest.pub.init_destination = jqc_dest_init;
    encoder->dest.pub.empty_output_buffer = jqc_dest_empty;
    encoder->dest.pub.term_destination = jqc_dest_term;
    jqc_error_init(&encoder->err);
    encoder->cinfo.err = &encoder->err.pub;
    return encoder;
}

/// Frees the encoder; the output buffer too unless `keep_output` (the caller then owns dest.buffer).
static void jqc_encoder_free(struct jqc_encoder *encoder, int keep_output) {
    if (!encoder) return;
    if (encoder->created) jpeg_destroy_compress(&encoder->cinfo);
    if (!keep_output) free(encoder->dest.buffer);
    free(encoder);
}

/// Creates and starts the compressor with cjpeg's defaults (jpeg_set_defaults: 4:2:0 for colour, the
/// accurate integer DCT, standard Huffman tables, no optimisation pass) and `quality`'s standard tables.
/// `space` is what the rows hold: JCS_GRAYSCALE (1), JCS_RGB or JCS_YCbCr (3, the latter stored without
/// conversion), JCS_CMYK (4). `raw`: YCbCr 4:2:0 planes come through jqc_enc_raw. `adobe_marker`: -1 keeps
/// libjpeg's default, 0 or 1 forces the Adobe APP14 marker off or on. `coding`: a JPEGCoding raw value.
static int jqc_enc_start(struct jqc_encoder *encoder, int width, int height, int components, J_COLOR_SPACE space,
                         int quality, int coding, int adobe_marker, int raw) {
    if (setjmp(encoder->err.jump)) return encoder->err.kind;
    struct jpeg_compress_struct *cinfo = &encoder->cinfo;
    jpeg_create_compress(cinfo);
    encoder->created = 1;
    cinfo->dest = &encoder->dest.pub;
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = components;
    cinfo->in_color_space = space;
    jpeg_set_defaults(cinfo);
    if (adobe_marker >= 0) cinfo->write_Adobe_marker = adobe_marker ? TRUE : FALSE;
    jpeg_set_quality(cinfo, quality, TRUE);
    if (coding == 1) jpeg_simple_progression(cinfo);
#ifdef C_ARITH_CODING_SUPPORTED
    if (coding == 2) cinfo->arith_code = TRUE;
#endif
    if (raw) {
        cinfo->raw_data_in = TRUE;
        cinfo->comp_info[0].h_samp_factor = 2;
        cinfo->comp_info[0].v_samp_factor = 2;
        for (int c = 1; c < 3; c++) {
            cinfo->comp_info[c].h_samp_factor = 1;
            cinfo->comp_info[c].v_samp_factor = 1;
        }
    }
    jpeg_start_compress(cinfo, TRUE);
    return JQC_JPEG_OK;
}

/// Writes exactly `count` scanlines.
static int jqc_enc_rows(struct jqc_encoder *encoder, JSAMPROW *rows, JDIMENSION count) {
    if (setjmp(encoder->err.jump)) return encoder->err.kind;
    JDIMENSION done = 0;
    while (done < count) {
        JDIMENSION wrote = jpeg_write_scanlines(&encoder->cinfo, rows + done, count - done);
        if (wrote == 0) return jqc_err_set(&encoder->err, JQC_JPEG_BAD_ARGUMENT, "The encoder took no scanlines.");
        done += wrote;
    }
    return JQC_JPEG_OK;
}

/// Writes one iMCU row of downsampled planes (`lines` = max_v_samp_factor × DCTSIZE scanlines).
static int jqc_enc_raw(struct jqc_encoder *encoder, JSAMPIMAGE planes, JDIMENSION lines) {
    if (setjmp(encoder->err.jump)) return encoder->err.kind;
    if (jpeg_write_raw_data(&encoder->cinfo, planes, lines) != lines) {
        return jqc_err_set(&encoder->err, JQC_JPEG_BAD_ARGUMENT, "The encoder took no raw data.");
    }
    return JQC_JPEG_OK;
}

static int jqc_enc_finish(struct jqc_encoder *encoder) {
    if (setjmp(encoder->err.jump)) return encoder->err.kind;
    jpeg_finish_compress(&encoder->cinfo);
    return JQC_JPEG_OK;
}

static int jqc_encode(const unsigned char *pixels, int width, int height, int channels, int quality, int coding,
                      int adobe_marker, size_t max_bytes, unsigned char **out, size_t *out_length,
                      jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!pixels || !out || !out_length || width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION
        || height > JPEG_MAX_DIMENSION || (channels != 1 && channels != 3 && channels != 4)
        || quality < 1 || quality > 100 || coding < 0 || coding > 2) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Invalid image or quality for encoding.");
    }
    *out = NULL;
    *out_length = 0;
    size_t row_bytes = (size_t)width * (size_t)channels;
    struct jqc_encoder *encoder = jqc_encoder_new(row_bytes * (size_t)height, max_bytes);
    if (!encoder) return jqc_status_simple(status, JQC_JPEG_NO_MEMORY, "Could not allocate the encoder.");
    J_COLOR_SPACE space = channels == 1 ? JCS_GRAYSCALE : channels == 3 ? JCS_RGB : JCS_CMYK;
    int kind = jqc_enc_start(encoder, width, height, channels, space, quality, coding, adobe_marker, 0);
    JSAMPROW rows[16];
    for (int y = 0; kind == JQC_JPEG_OK && y < height; y += 16) {
        int count = height - y < 16 ? height - y : 16;
        for (int i = 0; i < count; i++) rows[i] = (JSAMPROW)(pixels + (size_t)(y + i) * row_bytes);
        kind = jqc_enc_rows(encoder, rows, (JDIMENSION)count);
    }
    if (kind == JQC_JPEG_OK) kind = jqc_enc_finish(encoder);
    jqc_status_fill(status, &encoder->err, kind);
    if (kind == JQC_JPEG_OK) {
        *out = encoder->dest.buffer;
        *out_length = encoder->dest.length;
    }
    jqc_encoder_free(encoder, kind == JQC_JPEG_OK);
    return kind;
}

int jqc_jpeg_encode(const unsigned char *pixels, int width, int height, int channels, int quality,
                    int coding, size_t max_bytes, unsigned char **out, size_t *out_length,
                    jqc_jpeg_status *status) {
    if (channels != 1 && channels != 3) {
        jqc_status_clear(status);
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Only gray or RGB pixels can be encoded.");
    }
    return jqc_encode(pixels, width, height, channels, quality, coding, -1, max_bytes, out, out_length, status);
}

int jqc_jpeg_encode_cmyk(const unsigned char *pixels, int width, int height, int quality, int adobe_marker,
                         unsigned char **out, size_t *out_length, jqc_jpeg_status *status) {
    return jqc_encode(pixels, width, height, 4, quality, 0, adobe_marker ? 1 : 0, 0, out, out_length, status);
}

void jqc_jpeg_free(void *pointer) { free(pointer); }

int jqc_jpeg_quality_scaling(int quality) { return jpeg_quality_scaling(quality); }

int jqc_jpeg_standard_luminance_table(int quality, unsigned short values[64]) {
    if (!values || quality < 1 || quality > 100) return 0;
    struct jqc_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) return 0;
    jqc_error_init(&encoder->err);
    encoder->cinfo.err = &encoder->err.pub;
    if (setjmp(encoder->err.jump)) {
        jpeg_destroy_compress(&encoder->cinfo);
        free(encoder);
        return 0;
    }
    jpeg_create_compress(&encoder->cinfo);
    encoder->cinfo.in_color_space = JCS_RGB;
    encoder->cinfo.input_components = 3;
    jpeg_set_defaults(&encoder->cinfo);
    jpeg_set_quality(&encoder->cinfo, quality, TRUE);
    for (int i = 0; i < DCTSIZE2; i++) values[i] = encoder->cinfo.quant_tbl_ptrs[0]->quantval[i];
    jpeg_destroy_compress(&encoder->cinfo);
    free(encoder);
    return 1;
}


// MARK: - Orientation

static void jqc_swap_pixels(unsigned char *a, unsigned char *b, int channels) {
    for (int c = 0; c < channels; c++) {
        unsigned char t = a[c];
        a[c] = b[c];
        b[c] = t;
    }
}

/// Mirrors one row of `width` pixels left–right in place.
static void jqc_mirror_row_in_place(unsigned char *line, int width, int channels) {
    unsigned char *left = line, *right = line + (size_t)(width - 1) * (size_t)channels;
    if (channels == 3) {
        for (; left < right; left += 3, right -= 3) {
            unsigned char r = left[0], g = left[1], b = left[2];
            left[0] = right[0];
            left[1] = right[1];
            left[2] = right[2];
            right[0] = r;
            right[1] = g;
            right[2] = b;
        }
    } else if (channels == 1) {
        for (; left < right; left++, right--) {
            unsigned char t = *left;
            *left = *right;
            *right = t;
        }
    } else {
        for (; left < right; left += channels, right -= channels) jqc_swap_pixels(left, right, channels);
    }
}

/// Writes row `src` mirrored left–right into `dst` (another buffer).
static void jqc_mirror_row_copy(const unsigned char *src, unsigned char *dst, int width, int channels) {
    const unsigned char *s = src + (size_t)(width - 1) * (size_t)channels;
    if (channels == 3) {
        for (int x = 0; x < width; x++, s -= 3, dst += 3) {
            dst[0] = s[0];
            dst[1] = s[1];
            dst[2] = s[2];
        }
    } else if (channels == 1) {
        for (int x = 0; x < width; x++) dst[x] = s[-x];
    } else {
        for (int x = 0; x < width; x++, s -= channels, dst += channels) memcpy(dst, s, (size_t)channels);
    }
}

void jqc_orient_in_place(unsigned char *pixels, int width, int height, int channels, int orientation) {
    if (!pixels || width <= 0 || height <= 0) return;
    size_t row = (size_t)width * (size_t)channels;
    if (orientation == 2 || orientation == 3) {
        for (int y = 0; y < height; y++) jqc_mirror_row_in_place(pixels + (size_t)y * row, width, channels);
    }
    if (orientation == 3 || orientation == 4) {
        for (int y = 0; y < height / 2; y++) {
            unsigned char *top = pixels + (size_t)y * row;
            unsigned char *bottom = pixels + (size_t)(height - 1 - y) * row;
            for (size_t i = 0; i < row; i++) {
                unsigned char t = top[i];
                top[i] = bottom[i];
                bottom[i] = t;
            }
        }
    }
}

/// Transposes an 8 × 8 block of bytes held as eight little-endian rows (byte c of m[r] is column c of row
/// r): afterwards byte c of m[r] is what byte r of m[c] was. Three rounds of swapping off-diagonal blocks
/// (4 × 4, then 2 × 2, then single bytes).
static void jqc_transpose8(uint64_t m[8]) {
    for (int i = 0; i < 4; i++) {
        uint64_t t = ((m[i] >> 32) ^ m[i + 4]) & 0x00000000FFFFFFFFull;
        m[i] ^= t << 32;
        m[i + 4] ^= t;
    }
    for (int i = 0; i < 8; i += (i & 1) ? 3 : 1) {  // 0, 1, 4, 5
        uint64_t t = ((m[i] >> 16) ^ m[i + 2]) & 0x0000FFFF0000FFFFull;
        m[i] ^= t << 16;
        m[i + 2] ^= t;
    }
    for (int i = 0; i < 8; i += 2) {
        uint64_t t = ((m[i] >> 8) ^ m[i + 1]) & 0x00FF00FF00FF00FFull;
        m[i] ^= t << 8;
        m[i + 1] ^= t;
    }
}

static uint64_t jqc_load8(const unsigned char *p) {
    uint64_t value;
    memcpy(&value, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap64(value);
#endif
    return value;
}

static void jqc_store8(unsigned char *p, uint64_t value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    value = __builtin_bswap64(value);
#endif
    memcpy(p, &value, 8);
}

/// Output rows [`first`, `end`) of a one-byte-per-sample plane turned per orientation 5…8, in 8 × 8
/// blocks: eight 8-byte loads from eight source rows, a transpose in registers, eight 8-byte stores. The
/// output columns left over at the right edge (fewer than 8) are done one sample at a time.
static void jqc_turn_plane(const unsigned char *src, size_t src_stride, int width, int height, int orientation,
                           int first, int end, unsigned char *dst, size_t dst_stride) {
    const int out_width = height;
    const int reverse_columns = orientation == 7 || orientation == 8;  // output row y is source column W-1-y
    const int reverse_rows = orientation == 6 || orientation == 7;     // along x the source goes bottom-up
    const int blocked_width = out_width - out_width % 8;
    for (int y = first; y + 8 <= end; y += 8) {
        // Source columns for output rows y … y+7: y … y+7, or W-1-y down to W-8-y (read forwards, then the
        // bytes reversed).
        const int column = reverse_columns ? width - 8 - y : y;
        for (int x = 0; x < blocked_width; x += 8) {
            uint64_t m[8];
            for (int r = 0; r < 8; r++) {
                int sy = reverse_rows ? height - 1 - (x + r) : x + r;
                uint64_t row = jqc_load8(src + (size_t)sy * src_stride + (size_t)column);
                m[r] = reverse_columns ? __builtin_bswap64(row) : row;
            }
            jqc_transpose8(m);
            for (int c = 0; c < 8; c++) jqc_store8(dst + (size_t)(y + c - first) * dst_stride + (size_t)x, m[c]);
        }
    }
    // The rows after the last whole block of 8, and the columns after the last whole block in every row.
    const int blocked_end = first + (end - first) / 8 * 8;
    for (int y = first; y < end; y++) {
        int sx = reverse_columns ? width - 1 - y : y;
        for (int x = y < blocked_end ? blocked_width : 0; x < out_width; x++) {
            int sy = reverse_rows ? height - 1 - x : x;
            dst[(size_t)(y - first) * dst_stride + (size_t)x] = src[(size_t)sy * src_stride + (size_t)sx];
        }
    }
}

/// Writes output rows [`first`, `first` + `count`) of the `width` × `height` source (rows `src_stride`
/// bytes apart) turned per EXIF `orientation` (1…8) into `dst` (rows `dst_stride` bytes apart). Output rows
/// are `width` px wide for 1…4 and `height` px wide for 5…8 (which swap the sides).
static void jqc_orient_rows(const unsigned char *src, size_t src_stride, int width, int height, int channels,
                            int orientation, int first, int count, unsigned char *dst, size_t dst_stride) {
    if (orientation < 5 || orientation > 8) {
        const size_t row_bytes = (size_t)width * (size_t)channels;
        for (int y = first; y < first + count; y++) {
            int sy = (orientation == 3 || orientation == 4) ? height - 1 - y : y;
            const unsigned char *s = src + (size_t)sy * src_stride;
            unsigned char *d = dst + (size_t)(y - first) * dst_stride;
            if (orientation == 2 || orientation == 3) {
                jqc_mirror_row_copy(s, d, width, channels);
            } else {
                memcpy(d, s, row_bytes);
            }
        }
        return;
    }
    if (channels == 1) {
        jqc_turn_plane(src, src_stride, width, height, orientation, first, first + count, dst, dst_stride);
        return;
    }
    // Output is `height` px wide, `width` px tall: dst(x, y) for x < height, y < width. Along an output
    // row the source walks a column (one source row per step), so the work is done in square tiles to
    // keep both sides in cache.
    const int out_width = height, end = first + count, tile = 32;
    const ptrdiff_t step = (orientation == 5 || orientation == 8) ? (ptrdiff_t)src_stride : -(ptrdiff_t)src_stride;
    for (int ty = first; ty < end; ty += tile) {
        int y_end = ty + tile < end ? ty + tile : end;
        for (int tx = 0; tx < out_width; tx += tile) {
            int x_end = tx + tile < out_width ? tx + tile : out_width;
            for (int y = ty; y < y_end; y++) {
                // Source column: y for 5 and 6, width-1-y for 7 and 8; source row at x = tx: tx for 5 and 8
                // (rotating 90° counter-clockwise / transposing), height-1-tx for 6 and 7.
                int sx = (orientation == 5 || orientation == 6) ? y : width - 1 - y;
                int sy = (orientation == 5 || orientation == 8) ? tx : height - 1 - tx;
                const unsigned char *p = src + (ptrdiff_t)sy * (ptrdiff_t)src_stride + (ptrdiff_t)sx * channels;
                unsigned char *d = dst + (size_t)(y - first) * dst_stride + (size_t)tx * (size_t)channels;
                if (channels == 3) {
                    for (int x = tx; x < x_end; x++, d += 3, p += step) {
                        d[0] = p[0];
                        d[1] = p[1];
                        d[2] = p[2];
                    }
                } else if (channels == 1) {
                    for (int x = tx; x < x_end; x++, d++, p += step) *d = *p;
                } else {
                    for (int x = tx; x < x_end; x++, d += channels, p += step) memcpy(d, p, (size_t)channels);
                }
            }
        }
    }
}

void jqc_orient_copy(const unsigned char *src, int width, int height, int channels, int orientation,
                     unsigned char *dst) {
    if (!src || !dst || width <= 0 || height <= 0) return;
    const int swapped = orientation >= 5 && orientation <= 8;
    const size_t in_row = (size_t)width * (size_t)channels;
    const size_t out_row = (size_t)(swapped ? height : width) * (size_t)channels;
    jqc_orient_rows(src, in_row, width, height, channels, orientation, 0, swapped ? width : height, dst, out_row);
}

// MARK: - Transcoding (issue 17)
//
// One pass from the decoder to the encoder, the way `djpeg | cjpeg` streams scanlines through a pipe,
// but without the pipe. When the orientation keeps row order (1, 2), strips go from the decoder (this
// thread) through a ring of JQC_RING_SLOTS slots to the encoder (a second thread when the image is large
// enough and there are two cores), so decoding and encoding overlap and only a few strips are held.
// Orientations 3…8 need the last decoded row before the first output row: the whole image is decoded
// into one buffer, then encoded in turned strips (one image, not two).
//
// libjpeg's settings are the reference tools' (accurate integer DCT, fancy upsampling, 4:2:0 output,
// standard Huffman tables, no optimisation pass, RGB scanlines between the two). The one shortcut is for
// YCbCr 4:2:0 sources at full scale, which is what cameras and phones write: their downsampled planes go
// from the decoder's IDCT to the encoder's DCT as they are (jpeg_read_raw_data → jpeg_write_raw_data,
// turned plane by plane when the orientation asks), skipping upsampling, YCbCr → RGB, RGB → YCbCr and
// downsampling, which would only blur the chroma a little. A plane is turned only when its flips keep
// chroma on its luma pairs (an even width for a left–right mirror, an even height for a top–bottom one).

enum {
    JQC_STRIP_ROWS = 32,              // scanlines per strip (pixel paths)
    JQC_RAW_STRIP_IMCU = 2,           // iMCU rows (16 scanlines each) per strip (raw stream)
    JQC_RING_SLOTS = 4,               // strips in flight between the two threads
    JQC_THREAD_MIN_PIXELS = 1 << 18,  // below ~0.26 MP a second thread costs more than it saves
};

/// One component's samples in a raw (downsampled) buffer.
struct jqc_plane {
    int width;       // valid samples per row (the component's downsampled width)
    int height;      // valid rows
    size_t stride;   // bytes per row: whole MCUs, so never short of what libjpeg reads or writes
    int imcu_rows;   // rows per iMCU row (v_samp_factor × DCTSIZE)
    size_t offset;   // where this plane's rows start inside a slot or buffer
};

struct jqc_job {
    jqc_decoder *decoder;
    struct jqc_encoder *encoder;
    int path;
    int orientation;
    int cmyk;               // rows are decoded as CMYK and converted to RGB
    int channels;           // channels of the rows handed to the encoder (1 or 3; raw paths: 3 planes)
    int width;              // decoded px (after scaling, before orientation)
    int height;
    size_t row_bytes;       // width * channels (pixel paths)
    JSAMPLE *cmyk_rows;     // JQC_STRIP_ROWS rows of width * 4 samples (producer side only)
    unsigned char *image;   // full-buffer paths: the whole decoded image (packed rows, or planes)
    unsigned char *turned;  // full-buffer paths: one strip of turned output (rows, or one iMCU row of planes)
    struct jqc_plane in[3]; // raw paths: the decoder's planes (per slot when streaming, in `image` otherwise)
    struct jqc_plane out[3];// JQC_PATH_RAW_FULL_BUFFER: the encoder's planes, one iMCU row in `turned`
    JDIMENSION imcu_lines;  // raw paths: scanlines per jpeg_read_raw_data / jpeg_write_raw_data call
    int units;              // scanlines (pixel stream) or iMCU rows (raw stream) in the whole image
    int strip_units;        // … per strip
    int strips;
    size_t slot_bytes;
};

static int jqc_min(int a, int b) { return a < b ? a : b; }

/// Row pointers of iMCU row `k` of `planes` laid out from `base`.
static void jqc_plane_rows(const struct jqc_plane planes[3], unsigned char *base, int k,
                           JSAMPROW rows[3][2 * DCTSIZE], JSAMPARRAY image[3]) {
    for (int c = 0; c < 3; c++) {
        for (int r = 0; r < planes[c].imcu_rows; r++) {
            rows[c][r] = base + planes[c].offset + ((size_t)k * (size_t)planes[c].imcu_rows + (size_t)r) * planes[c].stride;
        }
        image[c] = rows[c];
    }
}

/// Repeats the last valid sample of a plane row up to its stride (the encoder reads whole blocks).
static void jqc_pad_row(unsigned char *row, int width, size_t stride) {
    if (width > 0 && (size_t)width < stride) memset(row + width, row[width - 1], stride - (size_t)width);
}

/// Decodes strip `strip` into `slot`: packed rows (pixel paths) or one strip of planes (raw stream). A
/// mirror (orientation 2) is applied here when streaming.
static int jqc_produce(struct jqc_job *job, int strip, unsigned char *slot) {
    int first = strip * job->strip_units;
    int count = jqc_min(job->units - first, job->strip_units);
    if (job->path == JQC_PATH_RAW_STREAM) {
        JSAMPROW rows[3][2 * DCTSIZE];
        JSAMPARRAY planes[3];
        for (int k = 0; k < count; k++) {
            jqc_plane_rows(job->in, slot, k, rows, planes);
            int kind = jqc_dec_raw(job->decoder, planes, job->imcu_lines);
            if (kind != JQC_JPEG_OK) return kind;
            if (job->orientation != 2) continue;
            for (int c = 0; c < 3; c++) {
                for (int r = 0; r < job->in[c].imcu_rows; r++) {
                    jqc_mirror_row_in_place(rows[c][r], job->in[c].width, 1);
                    jqc_pad_row(rows[c][r], job->in[c].width, job->in[c].stride);
                }
            }
        }
        return JQC_JPEG_OK;
    }
    JSAMPROW rows[JQC_STRIP_ROWS];
    size_t cmyk_row = (size_t)job->width * 4;
    for (int i = 0; i < count; i++) {
        rows[i] = job->cmyk ? job->cmyk_rows + (size_t)i * cmyk_row : slot + (size_t)i * job->row_bytes;
    }
    int kind = jqc_dec_rows(job->decoder, rows, (JDIMENSION)count);
    if (kind != JQC_JPEG_OK) return kind;
    for (int i = 0; i < count; i++) {
        unsigned char *row = slot + (size_t)i * job->row_bytes;
        if (job->cmyk) jqc_cmyk_row_to_rgb(rows[i], row, job->width);
        if (job->path == JQC_PATH_PIXEL_STREAM && job->orientation == 2) {
            jqc_mirror_row_in_place(row, job->width, job->channels);
        }
    }
    return JQC_JPEG_OK;
}

/// Encodes strip `strip` from `slot` (the streaming paths).
static int jqc_consume(struct jqc_job *job, int strip, unsigned char *slot) {
    int first = strip * job->strip_units;
    int count = jqc_min(job->units - first, job->strip_units);
    if (job->path == JQC_PATH_RAW_STREAM) {
        JSAMPROW rows[3][2 * DCTSIZE];
        JSAMPARRAY planes[3];
        for (int k = 0; k < count; k++) {
            jqc_plane_rows(job->in, slot, k, rows, planes);
            int kind = jqc_enc_raw(job->encoder, planes, job->imcu_lines);
            if (kind != JQC_JPEG_OK) return kind;
        }
        return JQC_JPEG_OK;
    }
    JSAMPROW rows[JQC_STRIP_ROWS];
    for (int i = 0; i < count; i++) rows[i] = slot + (size_t)i * job->row_bytes;
    return jqc_enc_rows(job->encoder, rows, (JDIMENSION)count);
}

struct jqc_ring {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct jqc_job *job;
    unsigned char *memory;
    int produced;      // strips decoded into the ring
    int consumed;      // strips encoded out of it
    int stop;          // a side failed: the other gives up
    int encoder_kind;  // the encoder thread's outcome (JQC_JPEG_OK when it gave up because of the decoder)
};

static unsigned char *jqc_slot(struct jqc_ring *ring, int strip) {
    return ring->memory + (size_t)(strip % JQC_RING_SLOTS) * ring->job->slot_bytes;
}

/// The encoder thread: takes each strip once the decoder has filled it, then finishes the JPEG.
static void *jqc_encoder_main(void *argument) {
    struct jqc_ring *ring = argument;
    struct jqc_job *job = ring->job;
    int kind = JQC_JPEG_OK;
    for (int strip = 0; strip < job->strips; strip++) {
        pthread_mutex_lock(&ring->lock);
        while (ring->produced <= strip && !ring->stop) pthread_cond_wait(&ring->changed, &ring->lock);
        int stop = ring->stop;
        pthread_mutex_unlock(&ring->lock);
        if (stop) return NULL;
        kind = jqc_consume(job, strip, jqc_slot(ring, strip));
        pthread_mutex_lock(&ring->lock);
        ring->consumed = strip + 1;
        if (kind != JQC_JPEG_OK) {
            ring->stop = 1;
            ring->encoder_kind = kind;
        }
        pthread_cond_broadcast(&ring->changed);
        pthread_mutex_unlock(&ring->lock);
        if (kind != JQC_JPEG_OK) return NULL;
    }
    kind = jqc_enc_finish(job->encoder);
    pthread_mutex_lock(&ring->lock);
    ring->encoder_kind = kind;
    pthread_mutex_unlock(&ring->lock);
    return NULL;
}

/// Runs a streaming path on two threads. Returns 0 when it ran, -1 when the thread could not start (the
/// caller then runs it on one). `*decoder_kind` and `*encoder_kind` say how each side ended.
static int jqc_stream_threaded(struct jqc_job *job, unsigned char *memory, int *decoder_kind, int *encoder_kind) {
    struct jqc_ring ring = {.job = job, .memory = memory};
    pthread_mutex_init(&ring.lock, NULL);
    pthread_cond_init(&ring.changed, NULL);
    pthread_t encoder;
    if (pthread_create(&encoder, NULL, jqc_encoder_main, &ring) != 0) {
        pthread_cond_destroy(&ring.changed);
        pthread_mutex_destroy(&ring.lock);
        return -1;
    }
    int kind = JQC_JPEG_OK;
    for (int strip = 0; strip < job->strips; strip++) {
        pthread_mutex_lock(&ring.lock);
        while (strip - ring.consumed >= JQC_RING_SLOTS && !ring.stop) pthread_cond_wait(&ring.changed, &ring.lock);
        int stop = ring.stop;
        pthread_mutex_unlock(&ring.lock);
        if (stop) break;
        kind = jqc_produce(job, strip, jqc_slot(&ring, strip));
        pthread_mutex_lock(&ring.lock);
        if (kind != JQC_JPEG_OK) {
            ring.stop = 1;
        } else {
            ring.produced = strip + 1;
        }
        pthread_cond_broadcast(&ring.changed);
        pthread_mutex_unlock(&ring.lock);
        if (kind != JQC_JPEG_OK) break;
    }
    pthread_join(encoder, NULL);
    pthread_cond_destroy(&ring.changed);
    pthread_mutex_destroy(&ring.lock);
    *decoder_kind = kind;
    *encoder_kind = ring.encoder_kind;
    return 0;
}

/// Runs a streaming path on this thread: each strip is decoded into the first slot, then encoded.
static void jqc_stream_single(struct jqc_job *job, unsigned char *slot, int *decoder_kind, int *encoder_kind) {
    *decoder_kind = JQC_JPEG_OK;
    *encoder_kind = JQC_JPEG_OK;
    for (int strip = 0; strip < job->strips; strip++) {
        if ((*decoder_kind = jqc_produce(job, strip, slot)) != JQC_JPEG_OK) return;
        if ((*encoder_kind = jqc_consume(job, strip, slot)) != JQC_JPEG_OK) return;
    }
    *encoder_kind = jqc_enc_finish(job->encoder);
}

/// JQC_PATH_FULL_BUFFER: decodes the whole image, then encodes it in turned strips (orientation 4 needs
/// no copy: its rows are handed over bottom-up).
static void jqc_full_buffer(struct jqc_job *job, int *decoder_kind, int *encoder_kind) {
    *encoder_kind = JQC_JPEG_OK;
    for (int strip = 0; strip < job->strips; strip++) {
        unsigned char *rows = job->image + (size_t)strip * (size_t)job->strip_units * job->row_bytes;
        if ((*decoder_kind = jqc_produce(job, strip, rows)) != JQC_JPEG_OK) return;
    }
    const int swapped = job->orientation >= 5;
    const int out_width = swapped ? job->height : job->width, out_height = swapped ? job->width : job->height;
    const size_t out_row = (size_t)out_width * (size_t)job->channels;
    JSAMPROW rows[JQC_STRIP_ROWS];
    for (int y = 0; y < out_height; y += JQC_STRIP_ROWS) {
        int count = jqc_min(out_height - y, JQC_STRIP_ROWS);
        if (job->orientation == 4) {
            for (int i = 0; i < count; i++) rows[i] = job->image + (size_t)(job->height - 1 - y - i) * job->row_bytes;
        } else {
            jqc_orient_rows(job->image, job->row_bytes, job->width, job->height, job->channels, job->orientation, y,
                            count, job->turned, out_row);
            for (int i = 0; i < count; i++) rows[i] = job->turned + (size_t)i * out_row;
        }
        if ((*encoder_kind = jqc_enc_rows(job->encoder, rows, (JDIMENSION)count)) != JQC_JPEG_OK) return;
    }
    *encoder_kind = jqc_enc_finish(job->encoder);
}

/// JQC_PATH_RAW_FULL_BUFFER: decodes every plane whole, then encodes them one output iMCU row at a time,
/// each plane turned on its own (padding repeated from the last valid sample and row).
static void jqc_raw_full_buffer(struct jqc_job *job, int *decoder_kind, int *encoder_kind) {
    *encoder_kind = JQC_JPEG_OK;
    JSAMPROW rows[3][2 * DCTSIZE];
    JSAMPARRAY planes[3];
    const int decoded_rows = (int)job->decoder->cinfo.total_iMCU_rows;
    for (int k = 0; k < decoded_rows; k++) {
        jqc_plane_rows(job->in, job->image, k, rows, planes);
        if ((*decoder_kind = jqc_dec_raw(job->decoder, planes, job->imcu_lines)) != JQC_JPEG_OK) return;
    }
    const int encoded_rows = (int)job->encoder->cinfo.total_iMCU_rows;
    for (int m = 0; m < encoded_rows; m++) {
        for (int c = 0; c < 3; c++) {
            const struct jqc_plane *in = &job->in[c], *out = &job->out[c];
            int first = m * out->imcu_rows;
            int count = jqc_min(out->height - first, out->imcu_rows);
            unsigned char *target = job->turned + out->offset;
            if (count > 0) {
                jqc_orient_rows(job->image + in->offset, in->stride, in->width, in->height, 1, job->orientation, first,
                                count, target, out->stride);
                for (int r = 0; r < count; r++) jqc_pad_row(target + (size_t)r * out->stride, out->width, out->stride);
            }
            for (int r = count > 0 ? count : 0; r < out->imcu_rows; r++) {
                if (r > 0) memcpy(target + (size_t)r * out->stride, target + (size_t)(r - 1) * out->stride, out->stride);
            }
        }
        jqc_plane_rows(job->out, job->turned, 0, rows, planes);
        if ((*encoder_kind = jqc_enc_raw(job->encoder, planes, job->imcu_lines)) != JQC_JPEG_OK) return;
    }
    *encoder_kind = jqc_enc_finish(job->encoder);
}

/// Whether the source's planes can go to the encoder as they are: YCbCr with cjpeg's own 4:2:0 sampling.
static int jqc_is_ycc420(const struct jpeg_decompress_struct *cinfo) {
    if (cinfo->jpeg_color_space != JCS_YCbCr || cinfo->num_components != 3) return 0;
    const jpeg_component_info *c = cinfo->comp_info;
    return c[0].h_samp_factor == 2 && c[0].v_samp_factor == 2 && c[1].h_samp_factor == 1 && c[1].v_samp_factor == 1
        && c[2].h_samp_factor == 1 && c[2].v_samp_factor == 1;
}

/// Whether turning 4:2:0 planes per `orientation` keeps each chroma sample on its own 2 × 2 luma block:
/// a left–right flip needs an even width, a top–bottom flip an even height.
static int jqc_planes_turn_cleanly(int width, int height, int orientation) {
    int flips_x = orientation == 2 || orientation == 3 || orientation == 7 || orientation == 8;
    int flips_y = orientation == 3 || orientation == 4 || orientation == 6 || orientation == 7;
    return (!flips_x || width % 2 == 0) && (!flips_y || height % 2 == 0);
}

/// Lays out one component's plane at `*offset`: `rows` rows of whole MCUs.
static void jqc_plane_layout(struct jqc_plane *plane, const jpeg_component_info *component, int rows,
                             size_t *offset) {
    size_t blocks = component->width_in_blocks + (size_t)component->h_samp_factor - 1;
    blocks -= blocks % (size_t)component->h_samp_factor;
    plane->width = (int)component->downsampled_width;
    plane->height = (int)component->downsampled_height;
    plane->stride = blocks * DCTSIZE;
    plane->imcu_rows = component->v_samp_factor * DCTSIZE;
    plane->offset = *offset;
    *offset += plane->stride * (size_t)rows;
}

static int jqc_processors(void) {
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count > 0 ? (int)count : 1;
}

int jqc_decoder_transcode(jqc_decoder *decoder, const jqc_transcode_options *options,
                          jqc_transcode_result *result, jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!decoder || !decoder->header_read || !options || !result) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Read the header and pass options and a result.");
    }
    memset(result, 0, sizeof *result);
    int denominator = options->scale_denom;
    if ((denominator != 1 && denominator != 2 && denominator != 4 && denominator != 8) || options->quality < 1
        || options->quality > 100 || options->orientation < 1 || options->orientation > 8) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "The scale, quality or orientation is out of range.");
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    struct jqc_job job = {.decoder = decoder, .orientation = options->orientation, .channels = 3};
    const int swapped = job.orientation >= 5;
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)denominator;
    J_COLOR_SPACE encoder_space = JCS_RGB;
    int raw = options->pass_through && denominator == 1 && jqc_is_ycc420(cinfo)
        && jqc_planes_turn_cleanly((int)cinfo->image_width, (int)cinfo->image_height, job.orientation);
    if (raw) {
        cinfo->raw_data_out = TRUE;
        cinfo->out_color_space = encoder_space = JCS_YCbCr;
        job.path = job.orientation <= 2 ? JQC_PATH_RAW_STREAM : JQC_PATH_RAW_FULL_BUFFER;
    } else {
        switch (cinfo->jpeg_color_space) {
        case JCS_GRAYSCALE:
            cinfo->out_color_space = encoder_space = JCS_GRAYSCALE;
            job.channels = 1;
            break;
        case JCS_CMYK:
        case JCS_YCCK:
            cinfo->out_color_space = JCS_CMYK;
            job.cmyk = 1;
            break;
        default:
            cinfo->out_color_space = JCS_RGB;
            break;
        }
        job.path = job.orientation <= 2 ? JQC_PATH_PIXEL_STREAM : JQC_PATH_FULL_BUFFER;
    }
    const int streams = job.path == JQC_PATH_RAW_STREAM || job.path == JQC_PATH_PIXEL_STREAM;

    int decoder_kind = jqc_dec_start(decoder), encoder_kind = JQC_JPEG_OK, threads = 0;
    unsigned char *memory = NULL;
    size_t sample_bytes = 0;
    job.width = (int)cinfo->output_width;
    job.height = (int)cinfo->output_height;
    job.row_bytes = (size_t)job.width * (size_t)job.channels;
    result->decoded_width = job.width;
    result->decoded_height = job.height;
    result->width = swapped ? job.height : job.width;
    result->height = swapped ? job.width : job.height;
    result->channels = job.channels;
    result->path = job.path;
    result->threads = 1;
    if (decoder_kind != JQC_JPEG_OK) goto done;

    if (raw) {
        job.imcu_lines = (JDIMENSION)(cinfo->max_v_samp_factor * DCTSIZE);
        int strip_rows = job.path == JQC_PATH_RAW_STREAM ? JQC_RAW_STRIP_IMCU : (int)cinfo->total_iMCU_rows;
        size_t offset = 0;
        for (int c = 0; c < 3; c++) {
            jqc_plane_layout(&job.in[c], &cinfo->comp_info[c], strip_rows * cinfo->comp_info[c].v_samp_factor * DCTSIZE,
                             &offset);
        }
        job.units = (int)cinfo->total_iMCU_rows;
        job.strip_units = JQC_RAW_STRIP_IMCU;
        job.slot_bytes = offset;
        sample_bytes = (size_t)job.width * (size_t)job.height * 3;
    } else {
        job.units = job.height;
        job.strip_units = JQC_STRIP_ROWS;
        job.slot_bytes = job.row_bytes * JQC_STRIP_ROWS;
        sample_bytes = job.row_bytes * (size_t)job.height;
    }
    job.strips = (job.units + job.strip_units - 1) / job.strip_units;
    threads = options->threads >= 2 && streams && jqc_processors() >= 2
        && (long long)job.width * job.height >= JQC_THREAD_MIN_PIXELS;

    job.encoder = jqc_encoder_new(sample_bytes, options->max_bytes);
    int allocated = job.encoder != NULL;
    if (job.cmyk) allocated = allocated && (job.cmyk_rows = malloc((size_t)job.width * 4 * JQC_STRIP_ROWS));
    if (streams) {
        result->sample_buffer_bytes = job.slot_bytes * (threads ? JQC_RING_SLOTS : 1);
        allocated = allocated && (memory = malloc(result->sample_buffer_bytes));
    } else if (job.path == JQC_PATH_RAW_FULL_BUFFER) {
        result->sample_buffer_bytes = job.slot_bytes;
        allocated = allocated && (job.image = malloc(job.slot_bytes));
    } else {
        size_t strip = job.orientation == 4 ? 0 : (size_t)result->width * (size_t)job.channels * JQC_STRIP_ROWS;
        result->sample_buffer_bytes = sample_bytes + strip;
        allocated = allocated && (job.image = malloc(sample_bytes));
        if (strip) allocated = allocated && (job.turned = malloc(strip));
    }
    if (!allocated) {
        decoder_kind = jqc_err_set(&decoder->err, JQC_JPEG_NO_MEMORY, "Could not allocate memory for the decoded photo");
        goto done;
    }
    encoder_kind = jqc_enc_start(job.encoder, result->width, result->height, job.channels, encoder_space,
                                 options->quality, 0, -1, raw);
    if (encoder_kind != JQC_JPEG_OK) goto done;
    if (raw) {
        // Both sides derive the planes from the same sizes and sampling (swapped for 5…8); check anyway.
        struct jpeg_compress_struct *output = &job.encoder->cinfo;
        size_t offset = 0;
        for (int c = 0; c < 3; c++) {
            const jpeg_component_info *theirs = &output->comp_info[c];
            int wide = (int)theirs->downsampled_width, tall = (int)theirs->downsampled_height;
            if (wide != (swapped ? job.in[c].height : job.in[c].width)
                || tall != (swapped ? job.in[c].width : job.in[c].height)
                || (!swapped && theirs->width_in_blocks != cinfo->comp_info[c].width_in_blocks)) {
                encoder_kind = jqc_err_set(&job.encoder->err, JQC_JPEG_BAD_ARGUMENT,
                                           "The encoder's planes do not match the decoder's.");
                goto done;
            }
            jqc_plane_layout(&job.out[c], theirs, theirs->v_samp_factor * DCTSIZE, &offset);
        }
        if (job.path == JQC_PATH_RAW_FULL_BUFFER) {
            result->sample_buffer_bytes += offset;
            if (!(job.turned = malloc(offset))) {
                decoder_kind = jqc_err_set(&decoder->err, JQC_JPEG_NO_MEMORY, "Could not allocate an output strip");
                goto done;
            }
        }
    }
    if (job.path == JQC_PATH_FULL_BUFFER) {
        jqc_full_buffer(&job, &decoder_kind, &encoder_kind);
    } else if (job.path == JQC_PATH_RAW_FULL_BUFFER) {
        jqc_raw_full_buffer(&job, &decoder_kind, &encoder_kind);
    } else if (threads && jqc_stream_threaded(&job, memory, &decoder_kind, &encoder_kind) == 0) {
        result->threads = 2;
    } else {
        jqc_stream_single(&job, memory, &decoder_kind, &encoder_kind);
    }
    if (decoder_kind == JQC_JPEG_OK && encoder_kind == JQC_JPEG_OK) decoder_kind = jqc_dec_finish(decoder);

done:
    free(memory);
    free(job.cmyk_rows);
    free(job.image);
    free(job.turned);
    int kind = decoder_kind != JQC_JPEG_OK ? decoder_kind : encoder_kind;
    if (kind != JQC_JPEG_OK) jpeg_abort_decompress(cinfo);
    if (decoder_kind != JQC_JPEG_OK) {
        jqc_status_fill(status, &decoder->err, kind);
    } else if (encoder_kind != JQC_JPEG_OK) {
        jqc_status_fill(status, &job.encoder->err, kind);
        status->tolerated_warnings = decoder->err.tolerated;
        status->first_tolerated_code = decoder->err.first_tolerated_code;
        snprintf(status->tolerated_message, sizeof status->tolerated_message, "%s", decoder->err.tolerated_message);
    } else {
        jqc_status_fill(status, &decoder->err, JQC_JPEG_OK);
        result->jpeg = job.encoder->dest.buffer;
        result->length = job.encoder->dest.length;
    }
    jqc_encoder_free(job.encoder, kind == JQC_JPEG_OK);
    return kind;
}
