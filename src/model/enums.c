#include "enums.h"

#include <string.h>

static const char *const kind_names[CG_KIND_COUNT] = {
	"meta", "span_start", "span_end", "op", "tensor", "memory", "device_memory", "gradient", "edge",
};
static const char *const category_names[CG_CAT_COUNT] = {
	"parameter", "optimizer_state", "input", "temporary", "activation",
	"gradient", "autograd_detail", "unknown", "before_profiling",
};
static const char *const phase_names[CG_PHASE_COUNT] = {"none", "forward", "backward", "optimizer"};
static const char *const span_kind_names[CG_SPAN_KIND_COUNT] = {"function", "op", "module"};
static const char *const grad_state_names[CG_GRAD_STATE_COUNT] = {
	"present", "missing", "zero", "non_finite",
};

const char *cg_kind_name(cg_kind k) { return k < CG_KIND_COUNT ? kind_names[k] : "?"; }
const char *cg_category_name(cg_category c) { return c < CG_CAT_COUNT ? category_names[c] : "?"; }
const char *cg_phase_name(cg_phase p) { return p < CG_PHASE_COUNT ? phase_names[p] : "?"; }
const char *cg_span_kind_name(cg_span_kind k) { return k < CG_SPAN_KIND_COUNT ? span_kind_names[k] : "?"; }
const char *cg_grad_state_name(cg_grad_state s) { return s < CG_GRAD_STATE_COUNT ? grad_state_names[s] : "?"; }
const char *cg_action_name(cg_action a) { return a == CG_ALLOC ? "alloc" : "free"; }

/* Lower-cases and drops separators, so "Optimizer-State", "OPTIMIZER_STATE"
 * and "optimizerState" all become "optimizerstate". */
static size_t fold(const char *s, size_t n, char *buf, size_t bufsize)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '_' || c == '-' || c == ' ' || c == '.')
			continue;
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (k + 1 >= bufsize)
			return 0; /* too long to be any known name */
		buf[k++] = (char)c;
	}
	buf[k] = '\0';
	return k;
}

typedef struct synonym {
	const char *folded;
	int value;
} synonym;

static bool match(const char *s, size_t n, const char *const *names, int count,
		  const synonym *syn, int *out)
{
	/* Writers almost always use the canonical spelling: try it as is first. */
	for (int i = 0; i < count; i++) {
		/* The first byte rules out most names without a strlen. */
		if (n && names[i][0] == s[0] && strlen(names[i]) == n && memcmp(names[i], s, n) == 0) {
			*out = i;
			return true;
		}
	}
	char key[40], canon[40];
	if (!fold(s, n, key, sizeof key))
		return false;
	for (int i = 0; i < count; i++) {
		fold(names[i], strlen(names[i]), canon, sizeof canon);
		if (strcmp(key, canon) == 0) {
			*out = i;
			return true;
		}
	}
	for (; syn && syn->folded; syn++) {
		if (strcmp(key, syn->folded) == 0) {
			*out = syn->value;
			return true;
		}
	}
	return false;
}

#define PARSE(fn, type, names, count, syn) \
	bool fn(const char *s, size_t n, type *out) \
	{ \
		int v; \
		if (!match(s, n, names, count, syn, &v)) \
			return false; \
		*out = (type)v; \
		return true; \
	}

static const synonym action_syn[] = {
	{"allocate", CG_ALLOC}, {"allocation", CG_ALLOC}, {"malloc", CG_ALLOC}, {"alloced", CG_ALLOC},
	{"deallocate", CG_FREE}, {"deallocation", CG_FREE}, {"dealloc", CG_FREE}, {"release", CG_FREE},
	{"freed", CG_FREE}, {NULL, 0},
};
static const char *const action_names[] = {"alloc", "free"};
static const synonym category_syn[] = {
	{"parameters", CG_CAT_PARAMETER}, {"param", CG_CAT_PARAMETER}, {"params", CG_CAT_PARAMETER},
	{"weight", CG_CAT_PARAMETER}, {"weights", CG_CAT_PARAMETER},
	{"optimizer", CG_CAT_OPTIMIZER_STATE}, {"optimstate", CG_CAT_OPTIMIZER_STATE},
	{"inputs", CG_CAT_INPUT}, {"temporaries", CG_CAT_TEMPORARY}, {"temp", CG_CAT_TEMPORARY},
	{"activations", CG_CAT_ACTIVATION}, {"gradients", CG_CAT_GRADIENT}, {"grad", CG_CAT_GRADIENT},
	{"grads", CG_CAT_GRADIENT}, {"autograd", CG_CAT_AUTOGRAD_DETAIL}, {NULL, 0},
};
/* Values are indices into step_names (a step is never "none"). */
static const synonym phase_syn[] = {
	{"fwd", 0}, {"bwd", 1}, {"opt", 2}, {"optimizerstep", 2}, {NULL, 0},
};
static const synonym grad_syn[] = {
	{"nonfinite", CG_GRAD_NON_FINITE}, {"nan", CG_GRAD_NON_FINITE}, {"inf", CG_GRAD_NON_FINITE},
	{"absent", CG_GRAD_MISSING}, {"none", CG_GRAD_MISSING}, {NULL, 0},
};

PARSE(cg_kind_parse, cg_kind, kind_names, CG_KIND_COUNT, NULL)
PARSE(cg_action_parse, cg_action, action_names, 2, action_syn)
/* The baseline category is cgmem's own; traces cannot claim it. */
PARSE(cg_category_parse, cg_category, category_names, CG_CAT_BASELINE, category_syn)
/* "none" is not a step a writer can name: a span without a step inherits one. */
static const char *const step_names[] = {"forward", "backward", "optimizer"};
bool cg_phase_parse(const char *s, size_t n, cg_phase *out)
{
	int v;
	if (!match(s, n, step_names, 3, phase_syn, &v))
		return false;
	*out = (cg_phase)(CG_PHASE_FORWARD + v);
	return true;
}
PARSE(cg_span_kind_parse, cg_span_kind, span_kind_names, CG_SPAN_KIND_COUNT, NULL)
PARSE(cg_grad_state_parse, cg_grad_state, grad_state_names, CG_GRAD_STATE_COUNT, grad_syn)

typedef struct dtype_info {
	const char *name;
	unsigned size;
	const char *aliases; /* space-separated, folded */
} dtype_info;

/* candle's names first; PyTorch's and numpy's spellings as aliases. */
static const dtype_info dtypes[] = {
	{"u8", 1, "uint8 byte"},
	{"i8", 1, "int8 char"},
	{"bool", 1, "boolean"},
	{"u16", 2, "uint16"},
	{"i16", 2, "int16 short"},
	{"f16", 2, "float16 half fp16"},
	{"bf16", 2, "bfloat16"},
	{"u32", 4, "uint32"},
	{"i32", 4, "int32 int"},
	{"f32", 4, "float32 float fp32"},
	{"u64", 8, "uint64"},
	{"i64", 8, "int64 long"},
	{"f64", 8, "float64 double fp64"},
	{"c32", 4, "complex32 chalf"},
	{"c64", 8, "complex64 cfloat"},
	{"c128", 16, "complex128 cdouble"},
	{"f8e4m3", 1, "float8e4m3fn float8e4m3fnuz f8e4m3fn"},
	{"f8e5m2", 1, "float8e5m2 float8e5m2fnuz"},
	{"unknown", 0, ""},
};

static bool in_aliases(const char *aliases, const char *key)
{
	size_t klen = strlen(key);
	const char *p = aliases;
	while (*p) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == klen && memcmp(p, key, len) == 0)
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

size_t cg_dtype_canonical(const char *s, size_t n, char *buf, size_t bufsize)
{
	if (n >= 6 && memcmp(s, "torch.", 6) == 0) {
		s += 6;
		n -= 6;
	}
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
		size_t len = strlen(dtypes[i].name);
		if (len == n && memcmp(dtypes[i].name, s, n) == 0 && len < bufsize) {
			memcpy(buf, dtypes[i].name, len + 1);
			return len;
		}
	}
	char key[40];
	if (fold(s, n, key, sizeof key)) {
		for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
			if (strcmp(key, dtypes[i].name) == 0 || in_aliases(dtypes[i].aliases, key)) {
				size_t len = strlen(dtypes[i].name);
				if (len >= bufsize)
					return 0;
				memcpy(buf, dtypes[i].name, len + 1);
				return len;
			}
		}
	}
	size_t len = n < bufsize - 1 ? n : bufsize - 1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		buf[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	buf[len] = '\0';
	return len;
}

unsigned cg_dtype_size(const char *canonical)
{
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (strcmp(canonical, dtypes[i].name) == 0)
			return dtypes[i].size;
	return 0;
}
