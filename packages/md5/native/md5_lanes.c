/*
 * MD5 of several independent streams at once ("multi-buffer" MD5). One MD5 is a chain of dependent
 * steps, so a core runs it at about 4-5 cycles a byte whatever its vector width; the steps of N
 * different streams are independent, so N of them fit in the lanes of one vector register and cost
 * about what one stream costs. Used for the parts of a transfer, which are hashed side by side.
 *
 * The step function is written once with GCC/Clang vector extensions and compiled for several
 * widths and instruction sets; the widest the CPU supports is chosen at run time.
 */
#include <node_api.h>
#include <stdint.h>
#include <string.h>

#define MAX_LANES 16

static const uint32_t K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

/* The message word order of rounds 2-4 (RFC 1321), and each step's rotation. */
static const uint8_t WORD[64] = {0, 1, 2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 1, 6, 11, 0,  5,  10,
                                 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 5, 8, 11, 14, 1, 4, 7, 10, 13, 0, 3, 6, 9, 12, 15, 2,
                                 0, 7, 14, 5, 12, 3, 10, 1, 8, 15, 6, 13, 4, 11, 2, 9};

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define G(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))
#define STEP(f, a, b, c, d, i, s) a = b + ROTL(a + f(b, c, d) + m[WORD[i]] + K[i], s)
#define ROUND(f, i, s0, s1, s2, s3)                                                                              \
  STEP(f, a, b, c, d, i, s0); STEP(f, d, a, b, c, i + 1, s1); STEP(f, c, d, a, b, i + 2, s2);                    \
  STEP(f, b, c, d, a, i + 3, s3)

/*
 * LANES streams, `blocks` 64-byte blocks each; lane l reads from in[l] and keeps its state in
 * state[0..3][l]. T is a vector of LANES uint32 (or uint32_t itself for one lane).
 */
#define DEFINE_MD5_LANES(name, T, LANES, attributes)                                                            \
  attributes static void name(uint32_t state[4][MAX_LANES], const uint8_t *const in[MAX_LANES], size_t blocks) { \
    T a, b, c, d;                                                                                                \
    for (int l = 0; l < LANES; l++) {                                                                            \
      ((uint32_t *)&a)[l] = state[0][l]; ((uint32_t *)&b)[l] = state[1][l];                                      \
      ((uint32_t *)&c)[l] = state[2][l]; ((uint32_t *)&d)[l] = state[3][l];                                      \
    }                                                                                                            \
    for (size_t block = 0; block < blocks; block++) {                                                            \
      T m[16];                                                                                                   \
      for (int w = 0; w < 16; w++)                                                                               \
        for (int l = 0; l < LANES; l++) {                                                                        \
          uint32_t word;                                                                                         \
          memcpy(&word, in[l] + block * 64 + w * 4, 4); /* MD5 reads little-endian words */                     \
          ((uint32_t *)&m[w])[l] = LITTLE_ENDIAN_WORD(word);                                                     \
        }                                                                                                        \
      const T a0 = a, b0 = b, c0 = c, d0 = d;                                                                    \
      ROUND(F, 0, 7, 12, 17, 22); ROUND(F, 4, 7, 12, 17, 22); ROUND(F, 8, 7, 12, 17, 22); ROUND(F, 12, 7, 12, 17, 22); \
      ROUND(G, 16, 5, 9, 14, 20); ROUND(G, 20, 5, 9, 14, 20); ROUND(G, 24, 5, 9, 14, 20); ROUND(G, 28, 5, 9, 14, 20); \
      ROUND(H, 32, 4, 11, 16, 23); ROUND(H, 36, 4, 11, 16, 23); ROUND(H, 40, 4, 11, 16, 23); ROUND(H, 44, 4, 11, 16, 23); \
      ROUND(I, 48, 6, 10, 15, 21); ROUND(I, 52, 6, 10, 15, 21); ROUND(I, 56, 6, 10, 15, 21); ROUND(I, 60, 6, 10, 15, 21); \
      a += a0; b += b0; c += c0; d += d0;                                                                        \
    }                                                                                                            \
    for (int l = 0; l < LANES; l++) {                                                                            \
      state[0][l] = ((uint32_t *)&a)[l]; state[1][l] = ((uint32_t *)&b)[l];                                      \
      state[2][l] = ((uint32_t *)&c)[l]; state[3][l] = ((uint32_t *)&d)[l];                                      \
    }                                                                                                            \
  }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LITTLE_ENDIAN_WORD(w) __builtin_bswap32(w)
#else
#define LITTLE_ENDIAN_WORD(w) (w)
#endif

typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));

typedef void (*lanes_fn)(uint32_t state[4][MAX_LANES], const uint8_t *const in[MAX_LANES], size_t blocks);

DEFINE_MD5_LANES(md5_x1, uint32_t, 1, )
DEFINE_MD5_LANES(md5_x4, u32x4, 4, )

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define X86_DISPATCH 1
DEFINE_MD5_LANES(md5_x8_avx2, u32x8, 8, __attribute__((target("avx2"))))
DEFINE_MD5_LANES(md5_x4_avx512, u32x4, 4, __attribute__((target("avx512f,avx512vl"))))
DEFINE_MD5_LANES(md5_x8_avx512, u32x8, 8, __attribute__((target("avx512f,avx512vl"))))
DEFINE_MD5_LANES(md5_x16_avx512, u32x16, 16, __attribute__((target("avx512f,avx512vl"))))
#else
DEFINE_MD5_LANES(md5_x8, u32x8, 8, )
#endif

/* Implementations by lane count: width[i] lanes for up to width[i] streams. */
static struct {
  int width;
  lanes_fn fn;
} widths[3];
static int width_count;
static const char *instruction_set = "generic";

static void choose(void) {
#ifdef X86_DISPATCH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) {
    instruction_set = "avx512";
    widths[0].width = 4, widths[0].fn = md5_x4_avx512;
    widths[1].width = 8, widths[1].fn = md5_x8_avx512;
    widths[2].width = 16, widths[2].fn = md5_x16_avx512;
    width_count = 3;
    return;
  }
  if (__builtin_cpu_supports("avx2")) {
    instruction_set = "avx2";
    widths[0].width = 4, widths[0].fn = md5_x4;
    widths[1].width = 8, widths[1].fn = md5_x8_avx2;
    width_count = 2;
    return;
  }
  instruction_set = "sse2";
  widths[0].width = 4, widths[0].fn = md5_x4;
  width_count = 1;
#else
  widths[0].width = 4, widths[0].fn = md5_x4;
  widths[1].width = 8, widths[1].fn = md5_x8;
  width_count = 2;
#endif
}

/* Hashes `blocks` blocks of each stream, `lanes` of them, in groups as wide as the CPU allows. */
static void hash_lanes(uint32_t *states, const uint8_t **inputs, size_t lanes, size_t blocks) {
  for (size_t first = 0; first < lanes;) {
    size_t left = lanes - first;
    uint32_t state[4][MAX_LANES];
    const uint8_t *in[MAX_LANES];
    if (left == 1) {
      for (int w = 0; w < 4; w++) state[w][0] = states[first * 4 + w];
      in[0] = inputs[first];
      md5_x1(state, in, blocks);
      for (int w = 0; w < 4; w++) states[first * 4 + w] = state[w][0];
      return;
    }
    /* The narrowest implementation that holds what is left, or the widest. */
    int pick = width_count - 1;
    for (int i = 0; i < width_count; i++)
      if ((size_t)widths[i].width >= left) { pick = i; break; }
    size_t take = (size_t)widths[pick].width < left ? (size_t)widths[pick].width : left;
    for (int l = 0; l < widths[pick].width; l++) {
      /* Unused lanes hash the first stream's bytes again; their result is dropped. */
      size_t from = (size_t)l < take ? first + l : first;
      in[l] = inputs[from];
      for (int w = 0; w < 4; w++) state[w][l] = states[from * 4 + w];
    }
    widths[pick].fn(state, in, blocks);
    for (size_t l = 0; l < take; l++)
      for (int w = 0; w < 4; w++) states[(first + l) * 4 + w] = state[w][l];
    first += take;
  }
}

#define CHECK(call)                                                                                              \
  do {                                                                                                           \
    if ((call) != napi_ok) return NULL;                                                                          \
  } while (0)

static napi_value throw_type_error(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

/* The memory and element count of `value` when it is a typed array of type `want`; false otherwise. */
static bool typed_array_of(napi_env env, napi_value value, napi_typedarray_type want, void **data, size_t *length) {
  bool is_typed;
  napi_typedarray_type type;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return false;
  if (napi_get_typedarray_info(env, value, &type, length, data, NULL, NULL) != napi_ok) return false;
  return type == want;
}

/* Exactly `count` arguments of the call into `argv`; false, with a TypeError saying `usage`, otherwise. */
static bool take_arguments(napi_env env, napi_callback_info info, size_t count, napi_value *argv, const char *usage) {
  size_t argc = count;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return false;
  if (argc == count) return true;
  throw_type_error(env, usage);
  return false;
}

/* hashBlocks(states: Uint32Array (4 per stream), inputs: Uint8Array[], blocks: number): undefined */
static napi_value hash_blocks(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!take_arguments(env, info, 3, argv, "hashBlocks(states, inputs, blocks) takes three arguments")) return NULL;

  size_t state_words;
  void *state_data;
  if (!typed_array_of(env, argv[0], napi_uint32_array, &state_data, &state_words)) return throw_type_error(env, "states must be a Uint32Array");

  uint32_t lanes;
  bool is_array;
  CHECK(napi_is_array(env, argv[1], &is_array));
  if (!is_array) return throw_type_error(env, "inputs must be an array of Uint8Array");
  CHECK(napi_get_array_length(env, argv[1], &lanes));
  if (lanes == 0 || lanes > 64 || state_words != (size_t)lanes * 4)
    return throw_type_error(env, "states must hold four words for each of 1 to 64 inputs");

  double blocks_number;
  if (napi_get_value_double(env, argv[2], &blocks_number) != napi_ok || blocks_number < 0 || blocks_number != (double)(size_t)blocks_number)
    return throw_type_error(env, "blocks must be a whole number");
  size_t blocks = (size_t)blocks_number;

  const uint8_t *inputs[64];
  for (uint32_t l = 0; l < lanes; l++) {
    napi_value element;
    size_t length;
    void *data;
    CHECK(napi_get_element(env, argv[1], l, &element));
    if (!typed_array_of(env, element, napi_uint8_array, &data, &length)) return throw_type_error(env, "inputs must be an array of Uint8Array");
    if (length < blocks * 64) return throw_type_error(env, "an input is shorter than blocks * 64 bytes");
    inputs[l] = data;
  }
  if (blocks) hash_lanes(state_data, inputs, lanes, blocks);
  return NULL;
}

/* alignmentSkip(view: Uint8Array, alignment: number): how many bytes from the view's start its memory is
   aligned to `alignment` (a power of two). JavaScript cannot see addresses; direct I/O needs them. */
static napi_value alignment_skip(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!take_arguments(env, info, 2, argv, "alignmentSkip(view, alignment) takes two arguments")) return NULL;
  size_t length;
  void *data;
  if (!typed_array_of(env, argv[0], napi_uint8_array, &data, &length)) return throw_type_error(env, "view must be a Uint8Array");
  uint32_t alignment;
  if (napi_get_value_uint32(env, argv[1], &alignment) != napi_ok || alignment == 0 || (alignment & (alignment - 1)) != 0)
    return throw_type_error(env, "alignment must be a power of two");
  uint32_t skip = (uint32_t)((alignment - ((uintptr_t)data & (alignment - 1))) & (alignment - 1));
  napi_value result;
  CHECK(napi_create_uint32(env, skip, &result));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  choose();
  napi_value fn, name;
  CHECK(napi_create_function(env, "hashBlocks", NAPI_AUTO_LENGTH, hash_blocks, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "hashBlocks", fn));
  CHECK(napi_create_function(env, "alignmentSkip", NAPI_AUTO_LENGTH, alignment_skip, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "alignmentSkip", fn));
  CHECK(napi_create_string_utf8(env, instruction_set, NAPI_AUTO_LENGTH, &name));
  CHECK(napi_set_named_property(env, exports, "instructionSet", name));
  napi_value widest;
  CHECK(napi_create_uint32(env, (uint32_t)widths[width_count - 1].width, &widest));
  CHECK(napi_set_named_property(env, exports, "widestGroup", widest));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
