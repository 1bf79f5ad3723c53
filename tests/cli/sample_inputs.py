"""The traces the schema tests run cgmem on: every file under samples/
(so a sample added later is covered without editing a list), less the
files beside them that are no trace (oracles, READMEs, licenses)."""
import os


def _is_trace(path):
    name = os.path.basename(path)
    return not (name.endswith(".oracle.json") or name.endswith(".md") or name.endswith(".LICENSE")
                or name.startswith("."))


def sample_traces(samples):
    found = []
    for root, dirs, files in os.walk(samples):
        dirs[:] = sorted(d for d in dirs if d != "licenses" and not d.startswith("."))
        found += [os.path.join(root, f) for f in sorted(files) if _is_trace(os.path.join(root, f))]
    return sorted(found)


def strict_json(text, what):
    """JSON as RFC 8259 has it: NaN, Infinity and duplicate keys are errors."""
    def no_constant(name):
        raise ValueError(f"{what}: {name} is not JSON")

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{what}: duplicate key in an object: {sorted(k for k in keys if keys.count(k) > 1)[0]}")
        return dict(pairs)

    import json
    return json.loads(text, parse_constant=no_constant, object_pairs_hook=no_duplicates)
