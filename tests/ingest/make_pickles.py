#!/usr/bin/env python3
"""Writes the test pickles of tests/ingest/test_pickle.c with Python's own
pickle module, and next to each the expected result, taken from the Python
object that was pickled (the independent oracle):

  NAME.expect   the value in pre-order, one line per node:
                N, T, F, I<int>, D<%.17g>, S<hex of the UTF-8 bytes> <1 when not valid UTF-8>,
                (<n> tuple, [<n> list, {<n> dict followed by key, value, key, value...
  manifest.txt  one line per file: NAME ok PROTOCOL, or NAME error BYTE MESSAGE
                (BYTE is the offending opcode's offset, found with pickletools)

Run from the repository root: python3 tests/ingest/make_pickles.py
The files are committed; the tests do not need Python."""
import gzip
import os
import pickle
import pickletools
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pickles")


def dump(v):
    out, st = [], [v]
    while st:
        x = st.pop()
        if x is None:
            out.append("N")
        elif x is True:
            out.append("T")
        elif x is False:
            out.append("F")
        elif isinstance(x, int):
            out.append("I%d" % x)
        elif isinstance(x, float):
            out.append("D%.17g" % x)
        elif isinstance(x, str):
            try:
                x.encode("utf-8")
                bad = 0
            except UnicodeEncodeError:
                bad = 1
            out.append("S%s %d" % (x.encode("utf-8", "surrogatepass").hex(), bad))
        elif isinstance(x, (tuple, list)):
            out.append("%s%d" % ("(" if isinstance(x, tuple) else "[", len(x)))
            st.extend(reversed(x))
        elif isinstance(x, dict):
            out.append("{%d" % len(x))
            kv = []
            for k, val in x.items():
                kv += [k, val]
            st.extend(reversed(kv))
        else:
            raise TypeError(type(x))
    return "\n".join(out) + "\n"


def opcodes(data):
    return [(op.name, arg, pos) for op, arg, pos in pickletools.genops(data)]


manifest = []


def ok(name, obj, protocol, data=None):
    data = data if data is not None else pickle.dumps(obj, protocol=protocol)
    assert pickle.loads(data) == obj or obj != obj  # nan
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    with open(os.path.join(OUT, name + ".expect"), "w") as f:
        f.write(dump(obj))
    manifest.append("%s ok %d" % (name, protocol))
    return data


def error(name, data, opname, message, nth=0):
    """The file must fail at the nth opcode called opname."""
    pos = [p for n, a, p in opcodes(data) if n == opname][nth]
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    manifest.append("%s error %d %s" % (name, pos, message))


class Calls:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def main():
    os.makedirs(OUT, exist_ok=True)
    frames = [{"filename": "train.py", "line": 12, "name": "step"},
              {"filename": "caf\udce9.py", "line": 3, "name": "<module>"}]
    basic = {
        "one_key": {"k": "v"},  # SETITEM
        "tuples": [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)],
        "consts": [True, False, None],
        "floats": [0.5, -1e300, 1.0 / 3, float("inf"), float("-inf"), -0.0, 5e-324],
        "ints": [0, 1, 255, 256, 65535, 65536, -1, -256, -2 ** 31, 2 ** 31 - 1, 2 ** 31,
                 47294971904, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, -2 ** 63, -2 ** 40],
        "long_str": "x" * 300 + "\u00e9\u4e2d\U0001f600",  # BINUNICODE
        "empty": ["", [], {}],
        "surrogate": "caf\udce9.py",
        "nul": "a\x00b",
        "frames_a": frames,  # the same list twice: one memo entry, gotten again
        "frames_b": frames,
        "nested": [[[[1]]], {"x": [{"y": ()}]}],
        "int_keys": {1: "one", -5: "minus five"},
        "tuple_key": {(1, 2): "pair"},
    }
    for proto in (2, 3, 4, 5):
        ok("basic_p%d.pickle" % proto, basic, proto)
    # BINPUT below 256 memo entries, LONG_BINPUT above; APPENDS in batches of 1000.
    strs = ["s%d" % i for i in range(300)]
    many = {"strs": strs, "ints": list(range(2500)), "big_dict": {"k%d" % i: i for i in range(1500)},
            "again": [strs[299], strs[5]]}
    d = ok("many_p2.pickle", many, 2)
    assert {"BINPUT", "LONG_BINPUT", "LONG_BINGET"} <= {n for n, a, p in opcodes(d)}
    ok("many_p4.pickle", many, 4)
    # gzip: the same bytes compressed (no name, mtime 0, so the file is reproducible).
    data = pickle.dumps(basic, protocol=4)
    with open(os.path.join(OUT, "basic_p4.pickle.gz"), "wb") as f:
        f.write(gzip.compress(data, mtime=0))
    with open(os.path.join(OUT, "basic_p4.pickle.gz.expect"), "w") as f:
        f.write(dump(basic))
    manifest.append("basic_p4.pickle.gz ok 4")

    # The snapshot's shape, for on_item: one inner list (APPEND), two (MARK ... APPENDS).
    entries = [{"action": "alloc", "addr": 0x7f0000000000 + 512 * i, "size": 512, "stream": 0,
                "time_us": 1700000000000000 + i, "frames": frames} for i in range(5)]
    ok("traces_one_key.pickle", {"device_traces": [entries]}, 4)
    ok("traces_two_devices.pickle",
       {"segments": [{"address": 1, "blocks": []}], "device_traces": [entries[:3], entries[3:]]}, 4)

    # Refused or too big, each at a known opcode.
    error("int_2pow64.pickle", pickle.dumps([1, 2 ** 64], protocol=4), "LONG1",
          "integer does not fit in 64 bits (LONG1 of 9 bytes)")
    error("int_below_int64.pickle", pickle.dumps([-2 ** 63 - 1], protocol=4), "LONG1",
          "integer does not fit in 64 bits (LONG1 of 9 bytes)")
    error("int_long4.pickle", pickle.dumps({"x": 7 ** 1000}, protocol=4), "LONG4",
          "integer does not fit in 64 bits (LONG4 of 352 bytes)")
    error("reduce_p2.pickle", pickle.dumps(Calls(), protocol=2), "GLOBAL",
          "opcode GLOBAL (0x63) refused: it would import and call Python code")
    error("reduce_p4.pickle", pickle.dumps([Calls()], protocol=4), "STACK_GLOBAL",
          "opcode STACK_GLOBAL (0x93) refused: it would import and call Python code")
    error("bytes_p3.pickle", pickle.dumps({"b": b"abc"}, protocol=3), "SHORT_BINBYTES",
          "opcode SHORT_BINBYTES (0x43) refused: it is not used by PyTorch snapshots")
    error("set_p4.pickle", pickle.dumps([{1, 2}], protocol=4), "EMPTY_SET",
          "opcode EMPTY_SET (0x8f) refused: it is not used by PyTorch snapshots")
    error("text_p0.pickle", pickle.dumps({"a": 1}, protocol=0), "MARK",
          "not a pickle of protocol 2 to 5")
    error("binary_p1.pickle", pickle.dumps({"a": 1}, protocol=1), "EMPTY_DICT",
          "not a pickle of protocol 2 to 5")
    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    sys.exit(main())
