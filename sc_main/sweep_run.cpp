#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "report/atomic_file.h"
#include "config/config_error.h"
#include "report/run_summary.h"
#include "report/run_view.h"
#include "sc_main/cli.h"
#include "sc_main/self_exec.h"
#include "sc_main/sweep.h"
#include "sc_main/sweep_collect.h"
#include "sc_main/sweep_plan.h"

extern char** environ;

namespace npuvp {
namespace {

const char* const kUsage =
    "usage: npuvp sweep run SWEEP.yaml --out DIR [--backend local|parallel|slurm] [options]\n"
    "       npuvp sweep collect DIR [--csv FILE] [--plot FILE.svg --x COLUMN --y COLUMN\n"
    "                               [--pareto] [--maximize COLUMN]...]\n"
    "       npuvp sweep point DIR ID...        (run points; what the backends call)\n"
    "       npuvp sweep task DIR [INDEX] [--per-task K]   (one Slurm array task)\n"
    "\n"
    "run options:\n"
    "  --out DIR              output directory (created; reused on a re-run)\n"
    "  --backend NAME         local (default), parallel (GNU parallel) or slurm\n"
    "  --jobs N               local / parallel: points at once (default: cores)\n"
    "  --sshloginfile FILE    parallel: spread over these ssh logins (shared file system)\n"
    "  --throttle N           slurm: at most N array tasks at once (--array=0-M%N)\n"
    "  --per-task K           slurm: points per array task (default 1)\n"
    "  --sbatch-arg ARG       slurm: an extra #SBATCH line (repeatable), e.g. --partition=short\n"
    "  --wait                 slurm: wait until the array has finished (sbatch --wait)\n"
    "  --dry-run              write the job list and the backend's script; run nothing\n"
    "  --retry-failed         run failed points again (finished points are always skipped)\n"
    "\n"
    "Docs: docs/sweep.md. Exit codes: 0 every point ok, 1 a point failed or is not\n"
    "done, 2 bad input.\n";

[[noreturn]] void bad(const std::string& message) {
    throw ConfigError(SourceLoc{"command line", 0, 0, ""}, "sweep: " + message);
}

std::string absolute(const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) bad("cannot read the current directory");
    return std::string(cwd) + "/" + path;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool file_exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

std::string shell_word(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// ------------------------------------------------------------ one point

pid_t start_point(const std::string& dir, const SweepPoint& pt) {
    const std::string pdir = point_dir(dir, pt.id);
    std::remove((pdir + "/summary.json").c_str());  // a stale one must not be read as this run's
    std::vector<std::string> args = pt.args;
    // A data-mode workload's dumps land in the point's folder, beside its
    // summary: points run at once, and each has its own bytes.
    args.insert(args.end(), {"--summary", pdir + "/summary.json", "--dump-dir", pdir});
    return start_self(args, pdir + "/log.txt");
}

std::string error_from_log(const std::string& log) {
    std::istringstream in(slurp(log));
    std::string line, last;
    while (std::getline(in, line)) {
        if (line.rfind("npuvp:", 0) == 0) return line;
        if (!line.empty()) last = line;
    }
    return last;
}

// Records how the point's npuvp process ended; returns the outcome (done =
// false when it was interrupted and is left to run again).
PointResult finish_point(const std::string& dir, const SweepPoint& pt, const ChildExit& child) {
    const std::string pdir = point_dir(dir, pt.id);
    PointResult r;
    // A point killed from outside (SIGKILL, SIGTERM, SIGINT, SIGHUP: a user,
    // a scheduler's time limit) is not recorded, so it runs again.
    const int sig = child.signal;
    if (!child.started || sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
        r.status = "interrupted";
        r.error = "npuvp " + child.describe();
        return r;
    }
    int code = child.code;
    if (sig) {
        r.status = "crashed";
        r.error = "npuvp ended by " + child.describe() + ": " + error_from_log(pdir + "/log.txt");
        code = -1;
    } else {
        r.status = summary_status(code);
        try {
            const YAML::Node s = YAML::LoadFile(pdir + "/summary.json");
            r.error = s["error"].as<std::string>();
        } catch (const std::exception&) {
            r.error = code == 0 ? "" : error_from_log(pdir + "/log.txt");
            if (code == 0) {
                r.status = "failed";
                r.error = "npuvp exited 0 but wrote no readable summary";
                code = 1;
            }
        }
        if (code != 0 && r.error.empty()) r.error = error_from_log(pdir + "/log.txt");
    }
    r.done = true;
    r.exit_code = code;
    write_file_atomically(pdir + "/result.json", [&](std::ostream& o) {
        o << "{\"schema\": \"npuvp.sweep-result/1\", \"index\": " << pt.index
          << ", \"id\": " << obs::json_string(pt.id) << ", \"status\": " << obs::json_string(r.status)
          << ", \"exit_code\": " << code << ", \"error\": " << obs::json_string(r.error) << "}\n";
    });
    return r;
}

std::string point_line(const SweepPoint& pt, const PointResult& r) {
    std::string line = r.status + "  " + pt.id;
    if (!r.error.empty()) {
        std::string first = r.error.substr(0, r.error.find('\n'));
        line += ": " + first;
    }
    return line;
}

// Runs the points one after the other (the `point` and `task` commands that
// GNU parallel and Slurm call). Returns 0 when every point has a recorded
// outcome, 1 otherwise.
int run_points_here(const std::string& dir, const std::vector<const SweepPoint*>& points) {
    int unrecorded = 0;
    for (const SweepPoint* pt : points) {
        const PointResult before = read_point_result(dir, pt->id);
        if (before.done) {
            std::cout << "skip  " << pt->id << " (done: " << before.status << ")\n" << std::flush;
            continue;
        }
        const PointResult r = finish_point(dir, *pt, wait_child(start_point(dir, *pt)));
        std::cout << point_line(*pt, r) << "\n" << std::flush;
        if (!r.done) ++unrecorded;
    }
    return unrecorded ? 1 : 0;
}

// ------------------------------------------------------------ backends

struct RunOptions {
    std::string sweep_file, dir, backend = "local";
    unsigned jobs = 0;  // 0: cores
    std::optional<std::string> sshloginfile;
    std::optional<unsigned> throttle;
    unsigned per_task = 1;
    std::vector<std::string> sbatch_args;
    bool wait = false, dry_run = false, retry_failed = false;
};

unsigned cores() {
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

// N worker processes on this machine. On a terminal: a progress line on
// stderr and a line for each point that is not ok; elsewhere one line per
// finished point.
void run_local(const std::string& dir, const std::vector<const SweepPoint*>& todo, unsigned jobs) {
    const bool tty = isatty(2);
    const auto begin = std::chrono::steady_clock::now();
    std::map<pid_t, const SweepPoint*> running;
    std::size_t next = 0, finished = 0, failed = 0;
    auto progress = [&]() {
        if (!tty) return;
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        std::fprintf(stderr, "\r[sweep] %zu / %zu points done, %zu failed, %zu running, %.1f s   ",
                     finished, todo.size(), failed, running.size(), wall);
        std::fflush(stderr);
    };
    while (next < todo.size() || !running.empty()) {
        while (running.size() < jobs && next < todo.size()) {
            const SweepPoint* pt = todo[next++];
            const pid_t pid = start_point(dir, *pt);
            if (pid < 0) {
                ++finished;
                ++failed;
                std::cout << "interrupted  " << pt->id << ": cannot start npuvp\n";
                continue;
            }
            running[pid] = pt;
        }
        progress();
        if (running.empty()) break;
        pid_t pid = -1;
        const ChildExit child = wait_any_child(&pid);
        const auto it = running.find(pid);
        if (it == running.end()) continue;  // not a point's process
        const SweepPoint* pt = it->second;
        running.erase(it);
        const PointResult r = finish_point(dir, *pt, child);
        ++finished;
        if (r.status != "ok") ++failed;
        if (tty && r.status == "ok") continue;  // the progress line counts it
        if (tty) std::fprintf(stderr, "\r%*s\r", 78, "");
        std::cout << point_line(*pt, r) << "\n" << std::flush;
    }
    progress();
    if (tty) std::fprintf(stderr, "\n");
}

// Runs `argv` (searched on PATH) and waits; its stdout is captured when
// `out` is given, else shared with ours. Returns how it ended.
ChildExit run_tool(const std::vector<std::string>& argv_in, std::string* out) {
    std::vector<std::string> copy = argv_in;
    std::vector<char*> argv;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    int pipe_fd[2] = {-1, -1};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (out) {
        if (pipe(pipe_fd) != 0) return ChildExit{};
        posix_spawn_file_actions_adddup2(&actions, pipe_fd[1], 1);
        posix_spawn_file_actions_addclose(&actions, pipe_fd[0]);
        posix_spawn_file_actions_addclose(&actions, pipe_fd[1]);
    }
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (out) {
        close(pipe_fd[1]);
        if (rc == 0) {
            char buffer[4096];
            ssize_t n;
            while ((n = read(pipe_fd[0], buffer, sizeof buffer)) > 0) out->append(buffer, static_cast<std::size_t>(n));
        }
        close(pipe_fd[0]);
    }
    if (rc != 0) return ChildExit{};
    return wait_child(pid);
}

std::string write_parallel_script(const RunOptions& o, const std::vector<const SweepPoint*>& todo,
                                  const std::string& npuvp) {
    std::string pending;
    for (const SweepPoint* pt : todo)
        pending += shell_word(npuvp) + " sweep point " + shell_word(o.dir) + " " + shell_word(pt->id) + "\n";
    write_file_atomically(o.dir + "/pending.txt", [&](std::ostream& f) { f << pending; });
    std::ostringstream s;
    s << "#!/bin/sh\n"
      << "# npuvp sweep: the points not yet done, through GNU parallel (docs/sweep.md).\n"
      << "# Each line of pending.txt is one `npuvp sweep point` command; a point skips\n"
      << "# itself when it is already done, so running this again is safe.\n"
      << "exec parallel --will-cite --halt never";
    if (o.jobs) s << " --jobs " << o.jobs;
    if (o.sshloginfile) s << " --sshloginfile " << shell_word(absolute(*o.sshloginfile));
    s << " --joblog " << shell_word(o.dir + "/parallel.joblog") << " :::: "
      << shell_word(o.dir + "/pending.txt") << "\n";
    const std::string path = o.dir + "/parallel.sh";
    write_file_atomically(path, [&](std::ostream& f) { f << s.str(); });
    chmod(path.c_str(), 0755);
    return path;
}

std::string write_slurm_script(const RunOptions& o, const SweepPlan& plan, const std::string& npuvp) {
    const std::size_t tasks = (plan.points.size() + o.per_task - 1) / o.per_task;
    std::ostringstream s;
    s << "#!/bin/sh\n"
      << "# npuvp sweep '" << plan.name << "': " << plan.points.size() << " points, " << o.per_task
      << " per array task (docs/sweep.md). Submit with: sbatch " << o.dir << "/slurm.sbatch\n"
      << "#SBATCH --job-name=npuvp-" << plan.name << "\n"
      << "#SBATCH --array=0-" << tasks - 1;
    if (o.throttle) s << "%" << *o.throttle;
    s << "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
      << "#SBATCH --output=" << o.dir << "/slurm/%A_%a.out\n";
    for (const std::string& a : o.sbatch_args) s << "#SBATCH " << a << "\n";
    s << "exec " << shell_word(npuvp) << " sweep task " << shell_word(o.dir)
      << " \"$SLURM_ARRAY_TASK_ID\" --per-task " << o.per_task << "\n";
    mkdir((o.dir + "/slurm").c_str(), 0755);
    const std::string path = o.dir + "/slurm.sbatch";
    write_file_atomically(path, [&](std::ostream& f) { f << s.str(); });
    return path;
}

// The tally after a run: one line, then every point that is not ok.
int report_tally(const std::string& dir, const SweepPlan& plan, std::ostream& out) {
    std::size_t ok = 0, failed = 0, pending = 0;
    std::vector<std::string> lines;
    for (const SweepPoint& pt : plan.points) {
        const PointResult r = read_point_result(dir, pt.id);
        if (!r.done) {
            ++pending;
            continue;
        }
        if (r.status == "ok") {
            ++ok;
        } else {
            ++failed;
            lines.push_back(point_line(pt, r));
        }
    }
    out << "sweep " << plan.name << ": " << plan.points.size() << " points: " << ok << " ok, "
        << failed << " failed, " << pending << " not done\n";
    for (const std::string& l : lines) out << "  " << l << "\n";
    return failed || pending ? exit_run_failed : exit_ok;
}

int sweep_run(const RunOptions& o_in) {
    RunOptions o = o_in;
    o.dir = absolute(o.dir);
    const SweepPlan plan = load_sweep_file(o.sweep_file);
    const std::string npuvp = self_path();
    write_sweep_dir(plan, o.sweep_file, o.dir, npuvp);

    std::vector<const SweepPoint*> todo;
    std::size_t done = 0;
    for (const SweepPoint& pt : plan.points) {
        const PointResult r = read_point_result(o.dir, pt.id);
        if (r.done && o.retry_failed && r.status != "ok") {
            std::remove((point_dir(o.dir, pt.id) + "/result.json").c_str());
        } else if (r.done) {
            ++done;
            continue;
        }
        todo.push_back(&pt);
    }
    std::cout << "sweep " << plan.name << ": " << plan.points.size() << " points";
    if (plan.excluded) std::cout << " (" << plan.excluded << " left out by constraints)";
    std::cout << ", " << done << " already done, " << todo.size() << " to run; job list "
              << o.dir << "/plan.tsv\n" << std::flush;

    if (o.backend == "local") {
        if (o.dry_run) return exit_ok;
        run_local(o.dir, todo, o.jobs ? o.jobs : cores());
    } else if (o.backend == "parallel") {
        const std::string script = write_parallel_script(o, todo, npuvp);
        std::cout << "GNU parallel script " << script << "\n" << std::flush;
        if (o.dry_run || todo.empty()) return o.dry_run ? exit_ok : report_tally(o.dir, plan, std::cout);
        const ChildExit e = run_tool({"sh", script}, nullptr);
        if (!e.started) bad("cannot run " + script);
        if (e.code == 127 || e.code == 255)
            std::cerr << "npuvp: sweep: GNU parallel did not run (" << e.describe()
                      << "); is the Debian package 'parallel' installed?\n";
    } else if (o.backend == "slurm") {
        const std::string script = write_slurm_script(o, plan, npuvp);
        std::cout << "Slurm batch script " << script << "\n" << std::flush;
        if (o.dry_run) return exit_ok;
        if (todo.empty()) return report_tally(o.dir, plan, std::cout);
        std::vector<std::string> argv{"sbatch", "--parsable"};
        if (o.wait) argv.push_back("--wait");
        argv.push_back(script);
        std::string job;
        const ChildExit e = run_tool(argv, &job);
        while (!job.empty() && (job.back() == '\n' || job.back() == '\r')) job.pop_back();
        if (!e.started) bad("cannot run sbatch (is Slurm installed? try --dry-run)");
        if (job.empty()) {
            std::cerr << "npuvp: sweep: sbatch failed (" << e.describe() << ")\n";
            return exit_run_failed;
        }
        std::cout << "submitted Slurm job " << job << " (" << o.dir << "/slurm/ has each task's output)\n";
        if (!o.wait) {
            std::cout << "when it has finished: npuvp sweep collect " << o.dir << "\n";
            return exit_ok;
        }
    } else {
        bad("unknown backend '" + o.backend + "' (local, parallel or slurm)");
    }
    return report_tally(o.dir, plan, std::cout);
}

// ------------------------------------------------------------ command line

unsigned parse_count(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || text[0] == '-' || v == 0 || v > 1000000)
        bad(flag + ": expected a count in [1, 1000000], got '" + text + "'");
    return static_cast<unsigned>(v);
}

}  // namespace

int run_sweep(int argc, char* argv[]) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << kUsage;
        return args.empty() ? exit_bad_input : exit_ok;
    }
    const std::string command = args[0];
    std::vector<std::string> positional;
    std::size_t i = 1;
    auto value = [&](const std::string& flag) -> std::string {
        if (i + 1 >= args.size()) bad(flag + " needs a value");
        return args[++i];
    };

    if (command == "run") {
        RunOptions o;
        std::optional<std::string> out;
        for (; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a == "--out") out = value(a);
            else if (a == "--backend") o.backend = value(a);
            else if (a == "--jobs") o.jobs = parse_count(a, value(a));
            else if (a == "--sshloginfile") o.sshloginfile = value(a);
            else if (a == "--throttle") o.throttle = parse_count(a, value(a));
            else if (a == "--per-task") o.per_task = parse_count(a, value(a));
            else if (a == "--sbatch-arg") o.sbatch_args.push_back(value(a));
            else if (a == "--wait") o.wait = true;
            else if (a == "--dry-run") o.dry_run = true;
            else if (a == "--retry-failed") o.retry_failed = true;
            else if (a.rfind("--", 0) == 0) bad("unknown option '" + a + "' (see npuvp sweep --help)");
            else positional.push_back(a);
        }
        if (positional.size() != 1) bad("run needs one sweep file (see npuvp sweep --help)");
        if (!out) bad("run needs --out DIR");
        if (o.backend != "local" && o.backend != "parallel" && o.backend != "slurm")
            bad("--backend: unknown backend '" + o.backend + "' (local, parallel or slurm)");
        if (o.sshloginfile && o.backend != "parallel") bad("--sshloginfile is for --backend parallel");
        if ((o.throttle || o.per_task != 1 || o.wait || !o.sbatch_args.empty()) && o.backend != "slurm")
            bad("--throttle, --per-task, --sbatch-arg and --wait are for --backend slurm");
        if (o.sshloginfile && !file_exists(*o.sshloginfile))
            bad("--sshloginfile: cannot find '" + *o.sshloginfile + "'");
        o.sweep_file = positional[0];
        o.dir = *out;
        return sweep_run(o);
    }
    if (command == "point" || command == "task") {
        unsigned per_task = 1;
        for (; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a == "--per-task" && command == "task") per_task = parse_count(a, value(a));
            else if (a.rfind("--", 0) == 0) bad("unknown option '" + a + "' (see npuvp sweep --help)");
            else positional.push_back(a);
        }
        if (positional.empty()) bad(command + " needs the sweep's output directory");
        const std::string dir = absolute(positional[0]);
        const SweepPlan plan = read_sweep_dir(dir);
        std::vector<const SweepPoint*> points;
        if (command == "point") {
            if (positional.size() < 2) bad("point needs one or more point ids");
            std::map<std::string, const SweepPoint*> by_id;
            for (const SweepPoint& pt : plan.points) by_id[pt.id] = &pt;
            for (std::size_t k = 1; k < positional.size(); ++k) {
                const auto it = by_id.find(positional[k]);
                if (it == by_id.end()) bad("no point '" + positional[k] + "' in " + dir + "/plan.tsv");
                points.push_back(it->second);
            }
        } else {
            std::string index_text;
            if (positional.size() == 2) index_text = positional[1];
            else if (positional.size() == 1 && std::getenv("SLURM_ARRAY_TASK_ID"))
                index_text = std::getenv("SLURM_ARRAY_TASK_ID");
            else bad("task needs DIR and an INDEX (or SLURM_ARRAY_TASK_ID)");
            char* end = nullptr;
            const unsigned long task = std::strtoul(index_text.c_str(), &end, 10);
            if (index_text.empty() || *end != '\0' || index_text[0] == '-')
                bad("task: INDEX must be a number, got '" + index_text + "'");
            const std::size_t first = task * per_task;
            if (first >= plan.points.size())
                bad("task " + index_text + " has no points (the plan has " +
                    std::to_string(plan.points.size()) + ", " + std::to_string(per_task) + " per task)");
            for (std::size_t k = first; k < plan.points.size() && k < first + per_task; ++k)
                points.push_back(&plan.points[k]);
        }
        return run_points_here(dir, points) ? exit_run_failed : exit_ok;
    }
    if (command == "collect") {
        CollectOptions o;
        for (; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a == "--csv") o.csv = value(a);
            else if (a == "--plot") o.plot = value(a);
            else if (a == "--x") o.x = value(a);
            else if (a == "--y") o.y = value(a);
            else if (a == "--pareto") o.pareto = true;
            else if (a == "--maximize") o.maximize.push_back(value(a));
            else if (a == "--group") o.group = value(a);
            else if (a == "--log-x") o.log_x = true;
            else if (a == "--log-y") o.log_y = true;
            else if (a.rfind("--", 0) == 0) bad("unknown option '" + a + "' (see npuvp sweep --help)");
            else positional.push_back(a);
        }
        if (positional.size() != 1) bad("collect needs one sweep output directory");
        o.dir = positional[0];
        if (!o.plot.empty() && (o.x.empty() || o.y.empty()))
            bad("--plot FILE needs --x COLUMN and --y COLUMN");
        if (o.plot.empty() && (!o.x.empty() || !o.y.empty() || o.pareto || !o.maximize.empty() ||
                               !o.group.empty() || o.log_x || o.log_y))
            bad("--x, --y, --group, --log-x, --log-y, --pareto and --maximize shape a --plot FILE; give one");
        return run_collect(o, std::cout);
    }
    bad("unknown sweep command '" + command + "' (run, collect, point, task; see npuvp sweep --help)");
}

}  // namespace npuvp
