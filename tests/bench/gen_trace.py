#!/usr/bin/env python3
"""Writes a synthetic candle-graph/trace/6 JSONL trace with about N memory
records, shaped like a training run: parameters, then steps of data /
forward / backward / optimizer spans with one op span per layer call, each
allocating outputs and temporaries; a small leak per step; a device
checkpoint every 1000 memory records. For benchmarks only (its figures are
not checked against anything).

    python3 tests/bench/gen_trace.py 3000000 > /tmp/big.jsonl
"""
import json
import random
import sys


def main():
    target = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    rnd = random.Random(1234)
    out = sys.stdout
    w = out.write
    t = 0
    nmem = 0
    sid = 0
    tid = 0

    def span(name, parent, step=None):
        nonlocal sid, t
        sid += 1
        rec = {"kind": "span_start", "id": "s%d" % sid, "name": name, "start_ns": t, "span_kind": "op"}
        if parent:
            rec["parent_id"] = parent
        if step:
            rec["step"] = step
        w(json.dumps(rec, separators=(",", ":")) + "\n")
        return "s%d" % sid, t

    def end(s, start):
        w('{"kind":"span_end","id":"%s","duration_ns":%d}\n' % (s, t - start))

    def mem(tensor, s, op, nbytes, action, cat):
        nonlocal nmem, t
        t += rnd.randint(50, 2000)
        nmem += 1
        w('{"kind":"memory","timestamp_ns":%d,"tensor_id":"%s","span_id":"%s","op_name":"%s","device":"cuda:0",'
          '"bytes":%d,"action":"%s","shape":[%d],"dtype":"f32","category":"%s"}\n'
          % (t, tensor, s, op, nbytes, action, nbytes // 4, cat))
        if nmem % 1000 == 0:
            w('{"kind":"device_memory","timestamp_ns":%d,"device":"cuda:0","used_bytes":%d,"free_bytes":%d,'
              '"reserved_bytes":%d}\n' % (t, 60 << 30, 20 << 30, 50 << 30))

    def new_tensor():
        nonlocal tid
        tid += 1
        return "t%d" % tid

    w('{"kind":"meta","schema":"candle-graph/trace/6","run_id":"synthetic","model":"synthetic","framework":"gen_trace.py"}\n')
    run, run_t = span("run:synthetic", None)
    setup, setup_t = span("setup:model", run)
    layers = 48
    params = []
    for i in range(layers):
        p = new_tensor()
        mem(p, setup, "aten::empty", rnd.choice([1, 2, 4]) << 20, "alloc", "parameter")
        params.append(p)
    end(setup, setup_t)
    step = 0
    while nmem < target:
        st, st_t = span("train_step#%d" % step, run)
        data, data_t = span("data", st)
        x = new_tensor()
        mem(x, data, "aten::randn", 8 << 20, "alloc", "input")
        end(data, data_t)
        fwd, fwd_t = span("forward", st, "forward")
        saved = []
        for i in range(layers):
            op, op_t = span("aten::linear", fwd)
            tmp = new_tensor()
            mem(tmp, op, "aten::mm", rnd.randint(1, 64) << 16, "alloc", "temporary")
            a = new_tensor()
            mem(a, op, "aten::addmm", rnd.randint(1, 32) << 16, "alloc", "activation")
            mem(tmp, op, "aten::mm", 0, "free", "temporary")
            saved.append(a)
            end(op, op_t)
        leak = new_tensor()
        mem(leak, fwd, "aten::nll_loss", 4096, "alloc", "activation")  # kept: a leak per step
        end(fwd, fwd_t)
        bwd, bwd_t = span("backward", st, "backward")
        grads = []
        for i in range(layers):
            op, op_t = span("AddmmBackward0", bwd)
            g = new_tensor()
            mem(g, op, "aten::mm", rnd.randint(1, 4) << 20, "alloc", "gradient")
            grads.append(g)
            mem(saved.pop(), op, "aten::addmm", 0, "free", "activation")
            end(op, op_t)
        mem(x, bwd, "aten::randn", 0, "free", "input")
        end(bwd, bwd_t)
        opt, opt_t = span("optimizer", st, "optimizer")
        for g in grads:
            op, op_t = span("aten::add_", opt)
            tmp = new_tensor()
            mem(tmp, op, "aten::mul", 1 << 20, "alloc", "temporary")
            mem(tmp, op, "aten::mul", 0, "free", "temporary")
            mem(g, op, "aten::mm", 0, "free", "gradient")
            end(op, op_t)
        end(opt, opt_t)
        end(st, st_t)
        step += 1
    end(run, run_t)


if __name__ == "__main__":
    main()
