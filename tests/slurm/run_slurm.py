#!/usr/bin/env python3
"""The scale-out of docs/scale-out.md run for real on Slurm (ctest slurm/array_merge).

    run_slurm.py CGMEM SAMPLES_DIR WORK_DIR

Starts a one-node Slurm cluster of its own under WORK_DIR: munged, slurmctld
and slurmd, on 127.0.0.1 only, with a generated munge key and slurm.conf
(proctrack/linuxproc, task/none, no cgroups, no accounting, ports of its
own). It submits an 8-task job array, one task per rank file (copies of
samples/ in mixed formats), and a job that depends on it (afterok) and
checks that the merged report is byte for byte the folder `cgmem report
FILE...` writes here, on one machine. The daemons are stopped by their pids whatever happens.

Every wait is bounded. Exit 0 when the check holds, 1 when it does not or
the cluster misbehaves, 77 (ctest SKIP_RETURN_CODE) only when Slurm or munge
is not installed.
"""
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

SKIP = 77
NODE = "cgnode"
PARTITION = "cgmem"
START_TIMEOUT = 60  # s: munged, slurmctld answering, the node idle
JOBS_TIMEOUT = 120  # s: the local report, the array and the dependent job done
STOP_TIMEOUT = 10  # s: a daemon's exit after SIGTERM, before SIGKILL
FINISHED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
            "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT"}

# The 8 ranks: copies of samples/, named as the ranks of one job, in every
# format cgmem reads (JSONL plain and gzip, Kineto, allocator snapshots).
RANKS = [
    ("mlp_adam.jsonl", "rank0.jsonl"),
    ("mlp_adam.jsonl.gz", "rank1.jsonl.gz"),
    ("cnn_sgd.jsonl", "rank2.jsonl"),
    ("mlp_adam_cut.jsonl", "rank3.jsonl"),
    ("external/kineto_resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz",
     "rank4.pt.trace.json.gz"),
    ("external/tracelens_h100_bert_small.json.gz", "rank5_trace.json.gz"),
    ("snapshots/yiyi_oom_snapshot.pickle", "snapshot_oom_rank-6.pickle"),
    ("snapshots/yiyi_1.3b_snapshot_d8e64782.pickle", "rank7_memory_snapshot.pickle"),
]

q = shlex.quote


class Failure(Exception):
    """The test failed; the message says why."""


# --- The work: map (the array tasks) and merge (the dependent job) --------
# The two steps of docs/scale-out.md. Each array task writes its rank's own
# report (whose summary.json is the partial); the dependent job merges the
# folders into the job's report. It must be byte for byte the folder
# `cgmem report FILE... -o DIR` writes on one machine.

def map_command(cgmem):
    """The shell command array task $i runs on its rank file $f, as
    docs/scale-out.md's map.sbatch (the folder appears whole or not at all)."""
    return f'{q(cgmem)} report -q "$f" -o "parts/$i"'


def local_reference(cgmem, rank_files, ref_dir, deadline):
    """The same work done on this machine, without Slurm, by DEADLINE."""
    r = subprocess.run([cgmem, "report", "-q", *rank_files, "-o", os.path.join(ref_dir, "out")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=max(1.0, deadline - time.monotonic()))
    if r.returncode != 0:
        raise Failure(f"cgmem report FILE... (local) exited {r.returncode}: "
                      f"{r.stderr.decode(errors='replace').strip()}")


def merge_command(cgmem, parts_dir, out_dir, n):
    """The dependent job's shell commands: the N rank reports merged."""
    parts = " ".join(q(os.path.join(parts_dir, str(i))) for i in range(n))
    return (f"{q(cgmem)} merge -q {parts} -o {q(out_dir)}\n"
            f"echo 'merge: the top report of {n} ranks written'")


def tree_bytes(d):
    """Every file under d, by its path relative to d."""
    got = {}
    for root, _, names in os.walk(d):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                got[os.path.relpath(path, d)] = f.read()
    return got


def compare_reports(out_dir, ref_dir):
    """Raises Failure unless the two folders hold the same files, byte for byte."""
    got, want = tree_bytes(out_dir), tree_bytes(ref_dir)
    if not want or not any(k.startswith("ranks/") for k in want):
        raise Failure(f"the local report {ref_dir} has no ranks/: {sorted(want)}")
    extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
    differ = sorted(k for k in set(got) & set(want) if got[k] != want[k])
    if extra or missing or differ:
        raise Failure(f"the merged report differs from cgmem report FILE...: only in the merge {extra}, "
                      f"only in the local report {missing}, other bytes {differ}")
    return len(want)


# --- The cluster ------------------------------------------------------------

def find_tools():
    """Paths of the programs used, or None when Slurm or munge is missing."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/usr/local/sbin:/sbin"
    tools = {}
    for name in ("munged", "slurmctld", "slurmd", "sbatch", "scontrol", "scancel"):
        tools[name] = shutil.which(name, path=path)
        if tools[name] is None:
            return None
    return tools


def free_port():
    """A TCP port free on 127.0.0.1 now (the kernel picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(run, user, ports, cpus):
    """slurm.conf of one node on 127.0.0.1, everything under run/."""
    host = socket.gethostname().split(".")[0]
    return f"""# generated by tests/slurm/run_slurm.py
ClusterName=cgmem
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ports[0]}
SlurmdPort={ports[1]}
# never INADDR_ANY: each daemon binds the address it is given, 127.0.0.1
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={run}/munge/munge.socket
StateSaveLocation={run}/ctld
SlurmdSpoolDir={run}/slurmd
SlurmctldPidFile={run}/slurmctld.pid
SlurmdPidFile={run}/slurmd.pid
SlurmctldLogFile={run}/slurmctld.log
SlurmdLogFile={run}/slurmd.log
TmpFS={run}/tmp
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups: processes tracked by their parent pids, no task binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
# a task's end starts the next at once, not after the default 3 s
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
# the node is what this file says, whatever the machine has
SlurmdParameters=config_overrides
NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={host} CPUs={cpus} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=10 State=UP
"""


class Cluster:
    """munged, slurmctld and slurmd under run/, stopped by their pids."""

    def __init__(self, tools, run):
        self.tools = tools
        self.run = run
        self.conf = os.path.join(run, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for k in list(self.env):
            # a job's own Slurm variables (ctest under srun) would steer sbatch
            if k.startswith("SLURM_") and k != "SLURM_CONF":
                del self.env[k]
        self.daemons = []  # (name, Popen), in start order
        self.jobs = []

    def start_daemon(self, name, argv):
        log = open(os.path.join(self.run, f"{name}.out"), "wb")
        # its own session, so a slurmstepd it leaves behind is in its group
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                             start_new_session=True, cwd=self.run)
        log.close()
        self.daemons.append((name, p))
        return p

    def check_alive(self):
        for name, p in self.daemons:
            if p.poll() is not None:
                raise Failure(f"{name} (pid {p.pid}) exited with status {p.returncode}")

    def ctl(self, *args, timeout=10):
        """scontrol ARGS: its standard output, or None when it failed."""
        try:
            r = subprocess.run([self.tools["scontrol"], *args], env=self.env, timeout=timeout,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except subprocess.TimeoutExpired:
            return None
        return r.stdout.decode(errors="replace") if r.returncode == 0 else None

    def wait(self, what, test, deadline):
        while True:
            self.check_alive()
            if test():
                return
            if time.monotonic() > deadline:
                raise Failure(f"timed out waiting for {what}")
            time.sleep(0.2)

    def start(self, user, cpus):
        run = self.run
        for d in ("munge", "ctld", "slurmd", "tmp", "parts", "ref", "logs"):
            os.mkdir(os.path.join(run, d), 0o700)
        # munged wants its socket's folder searchable by all (clients of any
        # user), and writable by it alone
        os.chmod(os.path.join(run, "munge"), 0o755)
        key = os.path.join(run, "munge", "munge.key")
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, os.urandom(1024))
        os.close(fd)
        ports = (free_port(), free_port())
        with open(self.conf, "w") as f:
            f.write(slurm_conf(run, user, ports, cpus))
        deadline = time.monotonic() + START_TIMEOUT
        m = os.path.join(run, "munge")
        sock = os.path.join(m, "munge.socket")
        self.start_daemon("munged", [self.tools["munged"], "--foreground", f"--socket={sock}",
                                     f"--key-file={key}", f"--pid-file={m}/munged.pid",
                                     f"--log-file={m}/munged.log", f"--seed-file={m}/munged.seed",
                                     "--origin=127.0.0.1"])
        self.wait("munged's socket", lambda: os.path.exists(sock), deadline)
        self.start_daemon("slurmctld", [self.tools["slurmctld"], "-D", "-f", self.conf])
        self.wait("slurmctld to answer", lambda: "is UP" in (self.ctl("ping") or ""), deadline)
        self.start_daemon("slurmd", [self.tools["slurmd"], "-D", "-N", NODE, "-f", self.conf])

        def idle():
            s = self.ctl("-o", "show", "node", NODE) or ""
            return re.search(r"\bState=IDLE\b", s) is not None
        self.wait(f"node {NODE} to be idle", idle, deadline)
        self.check_listening(ports)

    def check_listening(self, ports):
        """Fail if a daemon listens on any address but 127.0.0.1."""
        for path in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                with open(path) as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                local, state = row.split()[1], row.split()[3]
                addr, port = local.rsplit(":", 1)
                if state == "0A" and int(port, 16) in ports and addr != "0100007F":
                    raise Failure(f"a daemon listens on port {int(port, 16)} of an address "
                                  f"other than 127.0.0.1 ({path}: {addr})")

    def sbatch(self, script, *args):
        r = subprocess.run([self.tools["sbatch"], "--parsable", f"--partition={PARTITION}",
                            "--time=2", "--ntasks=1", *args, script], env=self.env, timeout=30,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.run)
        if r.returncode != 0:
            raise Failure(f"sbatch {' '.join(args)} {script} exited {r.returncode}: "
                          f"{r.stderr.decode(errors='replace').strip()}")
        job = r.stdout.decode().strip().split(";")[0]
        self.jobs.append(job)
        return job

    def job_states(self, job):
        """{JobId: (JobState, ExitCode)} of a job and its array tasks."""
        out = self.ctl("-o", "show", "job", job)
        if out is None:
            return None
        states = {}
        for line in out.splitlines():
            f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            name = f.get("JobId", "?")
            if "ArrayTaskId" in f:
                name = f"{f.get('ArrayJobId')}_{f['ArrayTaskId']}"
            states[name] = (f.get("JobState", "?"), f.get("ExitCode", "?"))
        return states

    def wait_jobs(self, jobs, deadline):
        last = {}

        def done():
            for j in jobs:
                s = self.job_states(j)
                if not s:
                    return False
                last[j] = s
                if any(state not in FINISHED for state, _ in s.values()):
                    return False
            return True
        try:
            self.wait("the jobs to finish", done, deadline)
        except Failure as e:
            raise Failure(f"{e}: {last}") from None
        return last

    def stop(self):
        """Cancel our jobs, then stop each daemon by its pid, last started
        first: SIGTERM, then SIGKILL after STOP_TIMEOUT."""
        if self.jobs and self.daemons and self.daemons[-1][1].poll() is None:
            try:
                subprocess.run([self.tools["scancel"], *self.jobs], env=self.env, timeout=10,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                pass  # the jobs' processes are killed below
        for name, p in reversed(self.daemons):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    print(f"{name} (pid {p.pid}) ignored SIGTERM: killed", file=sys.stderr)
                    p.kill()
                    p.wait()
        self.daemons = []
        # a slurmstepd and its job outlive slurmd (their own sessions)
        kill_cluster_processes(self.conf)

    def show_logs(self):
        for name in ("munge/munged.log", "slurmctld.log", "slurmd.log"):
            path = os.path.join(self.run, name)
            if not os.path.exists(path):  # it died before opening its log
                path = os.path.join(self.run, os.path.basename(name)[:-4] + ".out")
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    tail = f.read().splitlines()[-15:]
                if tail:
                    print(f"--- {name} (last lines)", file=sys.stderr)
                    print("\n".join(tail), file=sys.stderr)


def kill_cluster_processes(conf):
    """SIGKILL what is left of the cluster of slurm.conf CONF: every process
    whose environment holds SLURM_CONF=CONF, which the harness gives the
    daemons and sbatch, and they pass on to slurmstepd and the jobs."""
    mark = b"SLURM_CONF=" + conf.encode()
    for pid in (int(d) for d in os.listdir("/proc") if d.isdigit()):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark not in f.read().split(b"\0"):
                    continue
            os.kill(pid, signal.SIGKILL)
            print(f"killed pid {pid}, left by the cluster", file=sys.stderr)
        except OSError:
            continue


def stop_leftovers(run):
    """Daemons of an earlier run of this test in run/ (killed with it, say):
    stopped by the pids in their pid files, when the pid is still theirs,
    then what their jobs left."""
    for pidfile in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
        try:
            with open(os.path.join(run, pidfile)) as f:
                pid = int(f.read().split()[0])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if run.encode() in cmdline:
            print(f"stopping a leftover {os.path.basename(pidfile)[:-4]} (pid {pid})", file=sys.stderr)
            os.kill(pid, signal.SIGKILL)
    kill_cluster_processes(os.path.join(run, "slurm.conf"))


def write_script(path, body):
    with open(path, "w") as f:
        f.write("#!/bin/sh\nset -eu\n" + body + "\n")
    os.chmod(path, 0o755)


def main():
    if len(sys.argv) != 4:
        print("usage: run_slurm.py CGMEM SAMPLES_DIR WORK_DIR", file=sys.stderr)
        return 2
    cgmem, samples, work = (os.path.abspath(a) for a in sys.argv[1:])
    tools = find_tools()
    if tools is None:
        print("skipped: Slurm or munge is not installed (munged, slurmctld, slurmd, sbatch, "
              "scontrol, scancel; Debian slurm-wlm and munge, which .ci/setup --test installs)")
        return SKIP
    t0 = time.monotonic()
    run = os.path.join(work, "run")
    stop_leftovers(run)
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run, 0o755)
    # SIGTERM (ctest's timeout, a user) unwinds through the finally below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped by SIGTERM"))

    ranks_dir = os.path.join(run, "ranks")
    os.mkdir(ranks_dir)
    rank_files = []
    for src, name in RANKS:
        dst = os.path.join(ranks_dir, name)
        shutil.copyfile(os.path.join(samples, src), dst)
        rank_files.append(dst)
    n = len(rank_files)

    user = pwd.getpwuid(os.getuid()).pw_name  # not $USER, which sudo and su keep
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    cpus = max(2, min(8, cpus))

    cluster = Cluster(tools, run)
    try:
        cluster.start(user, cpus)
        t_up = time.monotonic()
        print(f"cluster up (munged, slurmctld, slurmd; node idle) in {t_up - t0:.1f} s")

        parts = os.path.join(run, "parts")
        ref = os.path.join(run, "ref")
        logs = os.path.join(run, "logs")
        # task i takes line i + 1 of files.txt, as in docs/scale-out.md
        with open(os.path.join(run, "files.txt"), "w") as f:
            f.write("".join(r + "\n" for r in rank_files))
        write_script(os.path.join(run, "map.sh"),
                     'i=$SLURM_ARRAY_TASK_ID\n'
                     'f=$(sed -n "$((i + 1))p" files.txt)\n'
                     '[ -n "$f" ] || { echo "files.txt has no line $((i + 1))" >&2; exit 1; }\n'
                     + map_command(cgmem))
        out = os.path.join(run, "out")
        write_script(os.path.join(run, "merge.sh"), merge_command(cgmem, parts, out, n))

        # the reference first, so the merge job never reads a half-written one
        deadline = time.monotonic() + JOBS_TIMEOUT
        local_reference(cgmem, rank_files, ref, deadline)
        t_ref = time.monotonic()
        print(f"local reference (cgmem report over the {n} files) in {t_ref - t_up:.1f} s")
        array = cluster.sbatch(os.path.join(run, "map.sh"), f"--array=0-{n - 1}",
                               f"--output={logs}/map.%A_%a.out")
        merge = cluster.sbatch(os.path.join(run, "merge.sh"), f"--dependency=afterok:{array}",
                               "--kill-on-invalid-dep=yes", f"--output={logs}/merge.%j.out")
        states = cluster.wait_jobs([array, merge], deadline)
        t_jobs = time.monotonic()
        print(f"array {array} ({n} tasks) and merge job {merge} done in {t_jobs - t_ref:.1f} s")

        bad = [(j, s, c) for js in states.values() for j, (s, c) in sorted(js.items())
               if s != "COMPLETED" or c != "0:0"]
        outputs = {j: os.path.join(logs, f"map.{j}.out") for j in states[array]}
        outputs[merge] = os.path.join(logs, f"merge.{merge}.out")
        if bad:
            def label(j):
                return f"merge job {j}" if j == merge else f"map task {j}"
            text = "jobs did not complete: " + "; ".join(f"{label(j)} {s}, exit code {c}"
                                                         for j, s, c in bad)
            for j, _, _ in bad:
                if j in outputs and os.path.exists(outputs[j]):
                    text += f"\n{label(j)}'s output:\n" + open(outputs[j], errors="replace").read()
            raise Failure(text)
        print(open(outputs[merge], errors="replace").read().strip())
        files = compare_reports(out, os.path.join(ref, "out"))
        print(f"out/ is byte-identical to cgmem report over the same files: {files} files")
        return 0
    except (Failure, OSError, subprocess.SubprocessError) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        cluster.show_logs()
        return 1
    finally:
        t_stop = time.monotonic()
        cluster.stop()
        print(f"daemons stopped in {time.monotonic() - t_stop:.1f} s; "
              f"whole test {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
