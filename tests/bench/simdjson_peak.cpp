// The fast reference of the benchmark (issue 17): simdjson On-Demand's
// iterate_many on one core, the peak of live bytes per device of a
// candle-graph JSONL trace, as docs/trace-format.md defines it for traces
// whose records come in time order per device (the generated ones do).
//
//     simdjson_peak TRACE.jsonl
//
// Prints "DEVICE: peak BYTES B at TIME ns" per device (as peak.py), and on
// stderr the memory records and frees it could not match. Built only with
// the bench target, -O3 -march=native, when libsimdjson-dev is installed.
//
// The file is read in 64 MiB windows cut at a newline into one padded
// buffer, so memory stays flat for a 2 GB trace; stage 1's worker thread is
// switched off (parser.threaded), so the parse runs on one core.
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

using namespace simdjson;

namespace {

struct device {
	std::unordered_map<std::string, uint64_t> live; // tensor id -> bytes of its live allocation
	int64_t bytes = 0;
	int64_t peak = -1;
	uint64_t peak_time = 0;
	uint64_t last_time = 0;
};

struct totals {
	std::map<std::string, device, std::less<>> devices;
	uint64_t memory = 0, unmatched = 0, lines = 0;
};

int fail(const char *path, uint64_t line, const char *what)
{
	std::fprintf(stderr, "simdjson_peak: %s:%llu: %s\n", path, (unsigned long long)line, what);
	return 1;
}

// One record; returns nonzero (after a message) when the trace is outside
// what this reference handles.
int record(totals &t, ondemand::document_reference doc, const char *path)
{
	std::string_view kind;
	if (doc["kind"].get_string().get(kind) || kind != "memory")
		return 0;
	std::string_view tid, dev, action;
	uint64_t ts = 0, bytes = 0;
	// On-Demand reads fields in the order asked; a trace that orders them
	// otherwise still works (find_field_unordered), only slower.
	if (doc["timestamp_ns"].get_uint64().get(ts) || doc["tensor_id"].get_string().get(tid) ||
	    doc["device"].get_string().get(dev) || doc["bytes"].get_uint64().get(bytes) ||
	    doc["action"].get_string().get(action))
		return fail(path, t.lines, "a memory record without its fields");
	t.memory++;
	auto it = t.devices.find(dev);
	if (it == t.devices.end())
		it = t.devices.emplace(std::string(dev), device()).first;
	device &d = it->second;
	if (ts < d.last_time)
		return fail(path, t.lines, "time runs backwards on a device: not what this reference handles");
	d.last_time = ts;
	if (action == "alloc") {
		auto [slot, fresh] = d.live.try_emplace(std::string(tid), bytes);
		if (!fresh) { // the writer lost its free: the earlier allocation ends here
			d.bytes -= (int64_t)slot->second;
			slot->second = bytes;
		}
		d.bytes += (int64_t)bytes;
	} else {
		auto slot = d.live.find(std::string(tid));
		if (slot == d.live.end()) { // before the trace, or a double free
			t.unmatched++;
			return 0;
		}
		d.bytes -= (int64_t)slot->second;
		d.live.erase(slot);
	}
	if (d.bytes > d.peak) {
		d.peak = d.bytes;
		d.peak_time = ts;
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: simdjson_peak TRACE.jsonl\n");
		return 2;
	}
	const char *path = argv[1];
	FILE *f = std::fopen(path, "rb");
	if (!f) {
		std::perror(path);
		return 1;
	}
	const size_t window = 64u << 20;
	std::vector<char> buf(window + SIMDJSON_PADDING);
	size_t have = 0; // bytes in buf carried over from the last window
	ondemand::parser parser;
#ifdef SIMDJSON_THREADS_ENABLED
	parser.threaded = false;
#endif
	totals t;
	for (;;) {
		size_t got = std::fread(buf.data() + have, 1, window - have, f);
		size_t len = have + got;
		if (len == 0)
			break;
		size_t cut = len;
		if (got != 0) { // not the end: stop after the last newline
			while (cut > 0 && buf[cut - 1] != '\n')
				cut--;
			if (cut == 0)
				return fail(path, t.lines + 1, "a line longer than the window");
		}
		ondemand::document_stream docs;
		if (parser.iterate_many(buf.data(), cut, 1u << 20).get(docs))
			return fail(path, t.lines + 1, "iterate_many failed");
		for (auto doc : docs) {
			t.lines++;
			ondemand::document_reference ref;
			if (std::move(doc).get(ref))
				return fail(path, t.lines, "not JSON");
			if (record(t, ref, path))
				return 1;
		}
		std::memmove(buf.data(), buf.data() + cut, len - cut);
		have = len - cut;
		if (got == 0)
			break;
	}
	if (std::ferror(f))
		return fail(path, t.lines, "read error");
	std::fclose(f);
	for (auto &[name, d] : t.devices)
		std::printf("%s: peak %lld B at %llu ns\n", name.c_str(), (long long)d.peak,
		            (unsigned long long)d.peak_time);
	std::fprintf(stderr, "simdjson_peak: %llu documents, %llu memory records, %llu frees unmatched\n",
	             (unsigned long long)t.lines, (unsigned long long)t.memory,
	             (unsigned long long)t.unmatched);
	return 0;
}
