"""llmecon.grid: the cartesian product of list-valued arguments, answered in C++ threads, as a
pandas DataFrame whose rows equal the per-call answers; sharded over a concurrent.futures executor
and a Dask cluster, the same rows in the same order."""
import concurrent.futures
import math

import pandas
import pytest

import llmecon

AXES = {"hw": ["h100-sxm", "b200"], "batch": [1, 64, 4096], "context": [1024, 131072]}
FIXED = {"model": "llama-3.1-70b", "chips": 4}


def per_call(hw, batch, context):
    try:
        return llmecon.roofline(hw=hw, batch=batch, context=context, **FIXED)
    except ValueError as e:
        return {"error": str(e)}


def test_rows_equal_the_per_call_answers_point_by_point():
    df = llmecon.grid("roofline", **AXES, **FIXED)
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == 2 * 3 * 2
    # Row-major: the last axis varies fastest.
    assert list(df["context"][:2]) == [1024, 131072] and list(df["batch"][:4]) == [1, 1, 64, 64]
    for _, row in df.iterrows():
        one = per_call(row["hw"], int(row["batch"]), int(row["context"]))
        assert row["feasible"] == one["feasible"]
        assert row["reason"] == (one.get("reason") or "")
        for key in ("t_step_s", "tokens_per_s", "usd_per_mtok_output", "mem_weights_bytes", "mem_kv_bytes"):
            want = one.get(key)
            if want is None:
                assert math.isnan(row[key]), key
            else:
                assert row[key] == pytest.approx(want, rel=1e-12), key
        assert row["bound"] == one["bound"] and row["hardware"] == one["hardware"]
    # Infeasible points carry their reason and no price (KV of 4096 x 131072 tokens does not fit).
    big = df[(df["batch"] == 4096) & (df["context"] == 131072)]
    assert not big["feasible"].any() and big["reason"].str.contains("HBM").all()
    assert big["usd_per_mtok_output"].isna().all()


def test_a_refused_point_is_a_row_with_the_cli_message():
    df = llmecon.grid("roofline", model="llama-3.1-8b", hw="h100-sxm", batch=[8, 0])
    assert list(df["feasible"]) == [True, False]
    with pytest.raises(ValueError) as e:
        llmecon.roofline(model="llama-3.1-8b", hw="h100-sxm", batch=0)
    assert df["reason"][1] == str(e.value)
    with pytest.raises(ValueError):
        llmecon.grid("roofline", model="llama-3.1-8b")  # no axis


def test_an_executor_gives_the_same_rows_in_order():
    local = llmecon.grid("roofline", **AXES, **FIXED, threads=1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        sharded = llmecon.grid("roofline", **AXES, **FIXED, executor=pool, shards=2)
    pandas.testing.assert_frame_equal(local, sharded)


def test_a_dask_cluster_gives_the_same_rows():
    distributed = pytest.importorskip("distributed")
    local = llmecon.grid("roofline", **AXES, **FIXED)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = llmecon.grid("roofline", **AXES, **FIXED, executor=client)
    pandas.testing.assert_frame_equal(local, remote)
