/* Deterministic synthetic candle-graph/trace/6 traces for the benchmark.
 *
 *   gentrace --mix memory|real --lines N [--seed S] [--stats FILE] > trace.jsonl
 *
 * A training loop on two devices (cuda:0, cuda:1), step after step: a
 * forward phase whose ops allocate activations (kept until backward) and
 * temporaries (freed within the op), a backward phase that frees the
 * activations and allocates gradients (kept until the optimizer's
 * zero_grad), an optimizer phase that allocates optimizer state once and
 * frees gradients, and device_memory checkpoints. Tensor ids are allocator
 * addresses with a generation, "7f3a00012e00#4", as the PyTorch recorder
 * writes them: an address is reused after its free, LIFO, as a caching
 * allocator does.
 *
 * memory: about 70 % of the lines are memory records.
 * real:   ops and spans dominate (nested op spans with long op lines, as in
 *         the PyTorch-recorded samples); memory records are a few percent.
 *
 * Exactly N lines are written; the spans still open are closed at the end.
 * --stats writes "lines N\nmemory M\n..." for the benchmark's per-record
 * figures. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDEV 2
#define LAYERS 24
#define MAX_OPEN 64

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n) { return rnd() % n; }

typedef struct tensor {
	uint32_t addr; /* index into the device's address table */
	uint32_t gen;
	uint64_t bytes;
	uint32_t d0, d1; /* shape */
} tensor;

typedef struct device {
	uint32_t *gen;	      /* generation of each address */
	uint32_t naddr, addr_cap;
	uint32_t *free_addr;  /* LIFO of freed addresses */
	uint32_t nfree, free_cap;
	uint64_t live;
} device;

/* Bumped whenever the traces change: 2 = spans last until their end. */
#define GENERATOR_VERSION 2

static struct {
	bool real;
	uint64_t lines_left, lines;
	uint64_t t;
	uint64_t next_span;
	uint64_t open[MAX_OPEN];
	uint64_t open_start[MAX_OPEN]; /* start_ns of each open span */
	struct pending_op {
		bool set;
		int dv;
		const char *name;
		uint32_t d0, d1;
	} open_op[MAX_OPEN]; /* the op record of an op span, written when it ends */
	int nopen;
	device dev[NDEV];
	uint64_t kinds[9];
	uint64_t nmem;
	FILE *out;
} g;

enum { K_META, K_START, K_END, K_OP, K_TENSOR, K_MEMORY, K_DEVMEM, K_GRAD, K_EDGE };

static void tick(uint64_t lo, uint64_t hi) { g.t += lo + below(hi - lo + 1); }

static void line_done(int kind)
{
	g.lines_left--;
	g.lines++;
	g.kinds[kind]++;
}

static const char *dev_name(int d) { return d == 0 ? "cuda:0" : "cuda:1"; }

static uint64_t span_start(const char *name, const char *kind, const char *step)
{
	uint64_t id = ++g.next_span;
	tick(200, 2000);
	fprintf(g.out, "{\"kind\":\"span_start\",\"id\":\"s%" PRIu64 "\"", id);
	if (g.nopen)
		fprintf(g.out, ",\"parent_id\":\"s%" PRIu64 "\"", g.open[g.nopen - 1]);
	fprintf(g.out, ",\"name\":\"%s\",\"start_ns\":%" PRIu64 ",\"span_kind\":\"%s\"", name, g.t, kind);
	if (step)
		fprintf(g.out, ",\"step\":\"%s\"", step);
	fputs(",\"measured\":true}\n", g.out);
	g.open_start[g.nopen] = g.t;
	g.open_op[g.nopen].set = false;
	g.open[g.nopen++] = id;
	line_done(K_START);
	return id;
}

static void write_op(uint64_t span, const struct pending_op *op, uint64_t t, uint64_t duration);

/* A span lasts until now, so it holds everything recorded inside it, as
 * a recorder's spans do; an op span's op record has the span's start and
 * duration, as the PyTorch recorder writes it. */
static void span_end(void)
{
	uint64_t id = g.open[--g.nopen];
	tick(100, 3000);
	uint64_t duration = g.t - g.open_start[g.nopen];
	if (g.open_op[g.nopen].set)
		write_op(id, &g.open_op[g.nopen], g.open_start[g.nopen], duration);
	fprintf(g.out, "{\"kind\":\"span_end\",\"id\":\"s%" PRIu64 "\",\"duration_ns\":%" PRIu64 "}\n", id,
		duration);
	line_done(K_END);
}

static uint32_t new_addr(device *d)
{
	if (d->nfree)
		return d->free_addr[--d->nfree];
	if (d->naddr == d->addr_cap) {
		d->addr_cap = d->addr_cap ? d->addr_cap * 2 : 1024;
		d->gen = realloc(d->gen, d->addr_cap * sizeof *d->gen);
		if (!d->gen)
			abort();
	}
	d->gen[d->naddr] = 0;
	return d->naddr++;
}

static void memory(int dv, tensor *tn, bool alloc, const char *op, const char *category)
{
	device *d = &g.dev[dv];
	tick(50, 800);
	if (alloc) {
		tn->addr = new_addr(d);
		tn->gen = d->gen[tn->addr];
		d->live += tn->bytes;
	} else {
		d->live -= tn->bytes;
		d->gen[tn->addr]++;
		if (d->nfree == d->free_cap) {
			d->free_cap = d->free_cap ? d->free_cap * 2 : 1024;
			d->free_addr = realloc(d->free_addr, d->free_cap * sizeof *d->free_addr);
			if (!d->free_addr)
				abort();
		}
		d->free_addr[d->nfree++] = tn->addr;
	}
	/* Addresses 512-byte aligned, as CUDA's caching allocator rounds. */
	uint64_t address = 0x7f3a00000000ull + (uint64_t)dv * 0x1000000000ull + (uint64_t)tn->addr * 0x200;
	fprintf(g.out,
		"{\"kind\":\"memory\",\"timestamp_ns\":%" PRIu64 ",\"tensor_id\":\"%" PRIx64 "#%u\","
		"\"span_id\":\"s%" PRIu64 "\",\"op_name\":\"%s\",\"device\":\"%s\",\"bytes\":%" PRIu64
		",\"action\":\"%s\",\"shape\":[%u,%u],\"dtype\":\"f32\",\"category\":\"%s\"}\n",
		g.t, address, tn->gen, g.open[g.nopen - 1], op, dev_name(dv), tn->bytes,
		alloc ? "alloc" : "free", tn->d0, tn->d1, category);
	line_done(K_MEMORY);
	g.nmem++;
}

static void checkpoint(int dv)
{
	tick(10, 100);
	uint64_t cap = 80ull << 30;
	uint64_t reserved = g.dev[dv].live + (g.dev[dv].live >> 3) + (64ull << 20);
	uint64_t used = reserved + (700ull << 20);
	fprintf(g.out,
		"{\"kind\":\"device_memory\",\"timestamp_ns\":%" PRIu64 ",\"device\":\"%s\",\"used_bytes\":%" PRIu64
		",\"free_bytes\":%" PRIu64 ",\"reserved_bytes\":%" PRIu64 "}\n",
		g.t, dev_name(dv), used, cap - used, reserved);
	line_done(K_DEVMEM);
}

/* The innermost open span is an op: its record is written when it ends. */
static void op_line(int dv, const char *name, uint32_t d0, uint32_t d1)
{
	g.open_op[g.nopen - 1] = (struct pending_op){true, dv, name, d0, d1};
}

static void write_op(uint64_t span, const struct pending_op *op, uint64_t t, uint64_t duration)
{
	int dv = op->dv;
	const char *name = op->name;
	uint32_t d0 = op->d0, d1 = op->d1;
	if (g.real) {
		fprintf(g.out,
			"{\"kind\":\"op\",\"span_id\":\"s%" PRIu64 "\",\"op_name\":\"%s\",\"inputs\":[\"in%" PRIu64
			"#0\",\"w%u#0\"],\"output\":\"out%" PRIu64 "#0\",\"shape\":[%u,%u],\"dtype\":\"f32\","
			"\"device\":\"%s\",\"duration_ns\":%" PRIu64 ",\"timestamp_ns\":%" PRIu64
			",\"input_storage_bytes\":%" PRIu64 ",\"input_shapes\":[[%u,%u],[%u,%u]],"
			"\"input_dtypes\":[\"f32\",\"f32\"]}\n",
			span, name, span, (unsigned)(span % 97), span, d0, d1, dev_name(dv), duration, t,
			(uint64_t)d0 * d1 * 8, d0, d1, d1, d1);
	} else {
		fprintf(g.out,
			"{\"kind\":\"op\",\"span_id\":\"s%" PRIu64 "\",\"op_name\":\"%s\",\"shape\":[%u,%u],"
			"\"dtype\":\"f32\",\"device\":\"%s\",\"duration_ns\":%" PRIu64 ",\"timestamp_ns\":%" PRIu64
			"}\n",
			span, name, d0, d1, dev_name(dv), duration, t);
	}
	line_done(K_OP);
}

/* Room for one op and the spans to close after it? */
static bool room(void) { return g.lines_left > 2 * (uint64_t)g.nopen + 40; }

static tensor sized(uint32_t d0, uint32_t d1)
{
	tensor t = {0, 0, (uint64_t)d0 * d1 * 4, d0, d1};
	return t;
}

/* Per device and layer: parameters, their gradients, activations. */
static tensor params[NDEV][LAYERS], grads[NDEV][LAYERS], acts[NDEV][LAYERS], optstate[NDEV][LAYERS][2];
static bool have_grad[NDEV][LAYERS], have_opt;

static const char *const fwd_ops[] = {"aten::linear", "aten::addmm", "aten::relu", "aten::layer_norm"};
static const char *const bwd_ops[] = {"aten::mm", "aten::threshold_backward", "aten::native_layer_norm_backward"};

/* An op in a memory-heavy trace: 3 span/op lines and 7 memory lines. */
static void memory_op(int dv, const char *name, tensor *keep, bool keep_alloc, const char *keep_cat,
		      tensor *drop, const char *drop_cat)
{
	span_start(name, "op", NULL);
	tick(100, 1000);
	op_line(dv, name, keep ? keep->d0 : 64, keep ? keep->d1 : 64);
	tensor tmp[3];
	int ntmp = 3 - (keep != NULL) - (drop != NULL) + 1;
	for (int i = 0; i < ntmp && i < 3; i++) {
		/* A model's temporaries come in few shapes: batch x a layer's width. */
		tmp[i] = sized(64u << below(3), 1024 + 64 * (uint32_t)below(LAYERS));
		memory(dv, &tmp[i], true, name, "temporary");
	}
	if (keep)
		memory(dv, keep, keep_alloc, name, keep_cat);
	if (drop)
		memory(dv, drop, false, name, drop_cat);
	for (int i = 0; i < ntmp && i < 3; i++)
		memory(dv, &tmp[i], false, name, "temporary");
	span_end();
}

/* An op in a real-like trace: an op span with a nested op; a memory record
 * pair now and then. */
static void real_op(int dv, const char *name, uint32_t d0, uint32_t d1)
{
	span_start(name, "op", NULL);
	op_line(dv, name, d0, d1);
	span_start("aten::empty_strided", "op", NULL);
	op_line(dv, "aten::empty_strided", d0, d1);
	if (below(8) == 0) {
		tensor t = sized(d0, d1);
		memory(dv, &t, true, name, "temporary");
		memory(dv, &t, false, name, "temporary");
	}
	span_end();
	span_end();
}

static void setup(void)
{
	span_start("setup:model", "module", NULL);
	for (int dv = 0; dv < NDEV; dv++) {
		for (int l = 0; l < LAYERS; l++) {
			params[dv][l] = sized(1024, 1024 + 64 * (uint32_t)l);
			span_start("aten::empty", "op", NULL);
			op_line(dv, "aten::empty", params[dv][l].d0, params[dv][l].d1);
			memory(dv, &params[dv][l], true, "aten::empty", "parameter");
			span_end();
		}
		checkpoint(dv);
	}
	span_end();
}

static void forward(void)
{
	span_start("forward", "function", "forward");
	for (int l = 0; l < LAYERS && room(); l++) {
		for (int dv = 0; dv < NDEV && room(); dv++) {
			const char *op = fwd_ops[l % 4];
			if (g.real) {
				real_op(dv, op, 64, params[dv][l].d1);
				continue;
			}
			acts[dv][l] = sized(256, params[dv][l].d1);
			memory_op(dv, op, &acts[dv][l], true, "activation", NULL, NULL);
		}
	}
	span_end();
}

static void backward(void)
{
	span_start("backward", "function", "backward");
	for (int l = LAYERS - 1; l >= 0 && room(); l--) {
		for (int dv = 0; dv < NDEV && room(); dv++) {
			const char *op = bwd_ops[l % 3];
			if (g.real) {
				real_op(dv, op, 64, params[dv][l].d1);
				continue;
			}
			if (!have_grad[dv][l]) {
				grads[dv][l] = params[dv][l];
				memory_op(dv, op, &grads[dv][l], true, "gradient", &acts[dv][l], "activation");
				have_grad[dv][l] = true;
			} else {
				memory_op(dv, op, NULL, false, NULL, &acts[dv][l], "activation");
			}
		}
	}
	span_end();
}

static void optimizer(void)
{
	span_start("optimizer", "function", "optimizer");
	for (int l = 0; l < LAYERS && room(); l++) {
		for (int dv = 0; dv < NDEV && room(); dv++) {
			if (g.real) {
				real_op(dv, "aten::add_", params[dv][l].d0, params[dv][l].d1);
				continue;
			}
			if (!have_opt) {
				for (int k = 0; k < 2; k++) {
					optstate[dv][l][k] = params[dv][l];
					memory_op(dv, "aten::zeros_like", &optstate[dv][l][k], true, "optimizer_state",
						  NULL, NULL);
				}
			}
			/* zero_grad(set_to_none=True) releases the gradient. */
			if (have_grad[dv][l]) {
				memory_op(dv, "aten::add_", NULL, false, NULL, &grads[dv][l], "gradient");
				have_grad[dv][l] = false;
			}
		}
	}
	have_opt = true;
	span_end();
}

static void gradients(uint64_t step)
{
	for (int l = 0; l < 4 && room(); l++) {
		fprintf(g.out,
			"{\"kind\":\"gradient\",\"event_id\":\"grad#%" PRIu64 ":layer%d.weight\",\"root\":\"Model\","
			"\"key\":\"layer%d.weight\",\"state\":\"present\",\"norm\":%.17g}\n",
			step, l, l, 0.001 + (double)below(1000000) / 1e6);
		line_done(K_GRAD);
	}
}

int main(int argc, char **argv)
{
	uint64_t lines = 0, seed = 1;
	const char *stats = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mix") == 0 && i + 1 < argc) {
			const char *m = argv[++i];
			if (strcmp(m, "real") == 0)
				g.real = true;
			else if (strcmp(m, "memory") != 0)
				goto usage;
		} else if (strcmp(argv[i], "--lines") == 0 && i + 1 < argc) {
			lines = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--stats") == 0 && i + 1 < argc) {
			stats = argv[++i];
		} else {
			goto usage;
		}
	}
	if (lines < 200)
		goto usage;
	rng_state = seed;
	g.out = stdout;
	static char buf[1 << 20];
	setvbuf(stdout, buf, _IOFBF, sizeof buf);
	g.lines_left = lines;

	fprintf(g.out,
		"{\"kind\":\"meta\",\"schema\":\"candle-graph/trace/6\",\"run_id\":\"bench-%s-%" PRIu64
		"\",\"model\":\"synthetic %d-layer model on two devices\",\"framework\":\"gentrace\","
		"\"started_at\":\"2026-01-01T00:00:00Z\",\"devices\":[\"cuda:0\",\"cuda:1\"],\"seed\":%" PRIu64 "}\n",
		g.real ? "real" : "memory", seed, LAYERS, seed);
	line_done(K_META);
	span_start("run:bench", "function", NULL);
	setup();
	for (uint64_t step = 0; room(); step++) {
		char name[64];
		snprintf(name, sizeof name, "train_step#%" PRIu64, step);
		span_start(name, "function", NULL);
		forward();
		if (room())
			backward();
		if (room())
			optimizer();
		for (int dv = 0; dv < NDEV && room(); dv++)
			checkpoint(dv);
		if (room())
			gradients(step);
		if (room()) {
			fprintf(g.out, "{\"kind\":\"edge\",\"from_span\":\"s%" PRIu64 "\",\"to_span\":\"s%" PRIu64
				       "\",\"duration_ns\":%" PRIu64 "}\n",
				g.open[g.nopen - 1], g.open[0], below(1000));
			line_done(K_EDGE);
		}
		span_end();
	}
	while (g.nopen > 0 && g.lines_left >= 1 + (uint64_t)g.open_op[g.nopen - 1].set)
		span_end();
	while (g.lines_left > 0)
		checkpoint((int)(g.lines_left % NDEV));
	if (fflush(stdout) != 0) {
		perror("gentrace");
		return 1;
	}
	if (stats) {
		FILE *f = fopen(stats, "w");
		if (!f) {
			perror(stats);
			return 1;
		}
		static const char *const names[] = {"meta", "span_start", "span_end", "op", "tensor",
						    "memory", "device_memory", "gradient", "edge"};
		/* run_bench.py regenerates traces made by an older generator. */
		fprintf(f, "generator %d\n", GENERATOR_VERSION);
		fprintf(f, "lines %" PRIu64 "\n", g.lines);
		for (int k = 0; k < 9; k++)
			fprintf(f, "%s %" PRIu64 "\n", names[k], g.kinds[k]);
		fclose(f);
	}
	return 0;
usage:
	fprintf(stderr, "usage: gentrace --mix memory|real --lines N (N >= 200) [--seed S] [--stats FILE]\n");
	return 2;
}
