"""The main job's profiled window (wsbench.asv.profiling): one more window of the profiled
set in the last server process, after its samples, with the hot function on top, saved as a
document of the profile store."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import fixture_impl
from wsbench.asv.profiling import ProfiledSetHook, profiler_of, save_profile
from wsbench.instrument import profile, provenance
from wsbench.instrument.cpus import default_placement
from wsbench.instrument.profiled import NATIVE, WINDOW_S
from wsbench.instrument.sampling import SamplingPlan, sample_scenarios
from wsbench.jobs.profile import top_functions
from wsbench.mainplan import CPU_PROFILE_SET
from wsbench.results import store
from wsbench.results.runformat import load


def test_the_profiled_set_is_profiled_once_in_the_last_process_and_saved(tmp_path: Path) -> None:
    impl = fixture_impl("hot_echo")
    scenario, params = CPU_PROFILE_SET
    other = {**params, "in_flight": 1}
    plan = SamplingPlan(processes=2, windows_per_process=1, warmup_s=0.1, window_s=0.2,
                        max_other_cpu_percent=1000.0, max_steal_percent=1000.0)  # fmt: skip
    hook = ProfiledSetHook(default_placement(), profile.py_spy())
    found = sample_scenarios(impl, None, {scenario: [other, params]}, plan,
                             placement=default_placement(), after_set=hook)  # fmt: skip
    assert all(b.status == "ok" for b in found[scenario])
    profiled = hook.found
    assert profiled is not None and profiled.status == "ok", profiled
    assert (profiled.scenario, profiled.params) == (scenario, params)
    assert profiled.duration_s == WINDOW_S
    # The unprofiled figure is the set's sample of the same (last) process: no extra window.
    (sample,) = [s for s in found[scenario][1].samples if s.process == 1]
    assert [w.messages_per_s for w in profiled.unprofiled] == [sample.messages_per_s]
    assert top_functions(profiled.stacks)[0][0] == "burn (hot_echo.py)"

    run = provenance.new_run(
        run_id="20261207T000000Z-abcdef", machine_name="m",
        settings=plan.settings(default_placement(), 1), impl=impl, config=impl.config(None),
        env_name="env",
    )  # fmt: skip
    path = save_profile(run, profiled, tmp_path, profile.py_spy())
    assert path is not None and path.is_relative_to(store.profile_store(tmp_path))
    doc = load(path)
    assert (doc.run_id, doc.benchmarks, doc.profiles) == (run.run_id, [], [profiled])
    assert doc.profiling is not None and doc.profiling.native == NATIVE
    assert doc.profiling.profiler.startswith("py-spy ")
    assert save_profile(run, None, tmp_path, profile.py_spy()) is None


def test_the_profiler_is_named_by_the_environment_or_off() -> None:
    assert profiler_of({}) is None and profiler_of({"WSBENCH_PROFILER": ""}) is None
    assert profiler_of({"WSBENCH_PROFILER": "/x/py-spy"}) == "/x/py-spy"
