"""torchpy.load's options and refusals against torch's: weights_only and the safe-globals API,
crafted pickles, map_location's forms, mmap, corrupt archives."""

import collections
import io
import os
import pickle
import zipfile

import numpy as np
import pytest
import torch

import torchpy
import torchpy.serialization as tps


class Point:  # a user class: weights_only refuses it until allowed
    def __init__(self, x=0):
        self.x = x


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def _both_refuse(path, **kwargs):
    theirs, ours = _error(lambda: torch.load(path, **kwargs)), _error(lambda: torchpy.load(path, **kwargs))
    assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)
    return ours


def test_user_class_refused_then_allowed(tmp_path):
    path = tmp_path / "point.pt"
    torch.save({"p": Point(3)}, path)
    error = _both_refuse(path)
    assert "Unsupported global: GLOBAL tests.serialization.test_load_options.Point" in str(error)
    assert "torch.serialization.add_safe_globals" in str(error)
    with tps.safe_globals([Point]):
        assert tps.get_safe_globals() == [Point]
        assert torchpy.load(path)["p"].x == 3
    assert tps.get_safe_globals() == []
    tps.add_safe_globals([Point])
    try:
        assert torchpy.load(path)["p"].x == 3
    finally:
        tps.clear_safe_globals()
    assert tps.get_safe_globals() == []
    assert torchpy.load(path, weights_only=False)["p"].x == 3
    assert tps.get_unsafe_globals_in_checkpoint(path) == torch.serialization.get_unsafe_globals_in_checkpoint(path)


class _WritesFile:
    path = ""

    def __reduce__(self):
        return (os.system, (f"echo pwned > {self.path}",))


class _ImportsModule:
    def __reduce__(self):
        import subprocess  # noqa: PLC0415  (the crafted payload names it)
        return (subprocess.check_output, (["true"],))


def _crafted(tmp_path, payload):
    """A checkpoint whose data.pkl holds `payload`, written by real torch's writer."""
    path = tmp_path / "evil.pt"
    torch.save({"x": torch.ones(1), "evil": payload}, path)
    return path


def test_os_system_payload_refused_and_not_run(tmp_path):
    marker = tmp_path / "marker.txt"
    _WritesFile.path = str(marker)
    path = _crafted(tmp_path, _WritesFile())
    error = _both_refuse(path)
    assert isinstance(error, pickle.UnpicklingError)
    assert "whose module posix is blocked" in str(error) or "whose module os is blocked" in str(error)
    with tps.safe_globals([os.system]):  # the blocklist wins over the allowlist
        _error(lambda: torchpy.load(path))
    assert not marker.exists()


def test_plain_pickle_payload_refused_and_not_run(tmp_path):
    marker = tmp_path / "marker_plain.txt"
    _WritesFile.path = str(marker)
    path = tmp_path / "plain.pt"
    path.write_bytes(pickle.dumps(_WritesFile(), protocol=2))
    error = _both_refuse(path)
    assert "is blocked" in str(error)
    assert not marker.exists()


def test_arbitrary_import_refused(tmp_path):
    path = _crafted(tmp_path, _ImportsModule())
    error = _both_refuse(path)
    assert "Unsupported global: GLOBAL commands.check_output" in str(error)  # protocol 2 says commands


def test_corrupt_archive_names_the_file(tmp_path):
    good = tmp_path / "good.pt"
    torch.save({"a": torch.ones(1000)}, good)
    raw = good.read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(RuntimeError, match="failed finding central directory") as info:
        torchpy.load(truncated)
    assert "truncated.pt" in str(info.value) and "PytorchStreamReader failed reading zip archive" in str(info.value)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint at all")
    with pytest.raises(RuntimeError, match="garbage.pt"):
        torchpy.load(garbage)
    # a damaged record header: the reader says which record and which file
    broken = tmp_path / "broken.pt"
    info0 = zipfile.ZipFile(good).getinfo("good/data/0")
    broken.write_bytes(raw[: info0.header_offset] + b"XXXX" + raw[info0.header_offset + 4:])
    with pytest.raises(RuntimeError, match="broken.pt") as info:
        torchpy.load(broken)
    assert "data/0" in str(info.value)


@pytest.mark.parametrize("map_location", ["cpu", torch.device("cpu"), {"cpu": "cpu"}, "callable"])
def test_map_location_forms(tmp_path, map_location):
    path = tmp_path / "m.pt"
    torch.save({"a": torch.arange(4.0)}, path)
    seen = []

    def to_cpu(storage, location):
        seen.append(location)
        return storage

    ours = to_cpu if map_location == "callable" else (
        torchpy.device("cpu") if isinstance(map_location, torch.device) else map_location)
    assert torchpy.load(path, map_location=ours)["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
    if map_location == "callable":
        assert seen == ["cpu"]


def test_map_location_meta_and_cuda(tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"a": torch.arange(4.0).reshape(2, 2).t()}, path)
    theirs, ours = torch.load(path, map_location="meta")["a"], torchpy.load(path, map_location="meta")["a"]
    assert ours.device.type == "meta" and ours.stride() == theirs.stride() and ours.shape == (2, 2)
    ours = torchpy.load(path, map_location={"cpu": "meta"})["a"]
    assert ours.device.type == "meta"
    assert torchpy.load(path, map_location=lambda s, loc: None)["a"].tolist() == [[0.0, 2.0], [1.0, 3.0]]
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        torchpy.load(path, map_location={"cpu": "cuda:0"})
    with pytest.raises(RuntimeError, match="don't know how to restore data location"):
        torchpy.serialization.default_restore_location(torchpy.ones(1).untyped_storage(), "xyz")


def test_register_package(tmp_path):
    path = tmp_path / "m.pt"
    torch.save(torch.ones(2), path)
    calls = []

    def deserializer(storage, location):
        calls.append(location)
        return None

    tps.register_package(1, lambda storage: None, deserializer)
    try:
        assert torchpy.load(path).tolist() == [1.0, 1.0]
    finally:
        tps._package_registry[:] = [entry for entry in tps._package_registry if entry[2] is not deserializer]
    assert calls == ["cpu"]


def test_mmap(tmp_path):
    path = tmp_path / "big.pt"
    state = collections.OrderedDict(a=torch.arange(1000.0), b=torch.ones(7, dtype=torch.float64))
    torch.save(state, path)
    loaded = torchpy.load(path, mmap=True)
    assert loaded["a"].tolist() == state["a"].tolist() and loaded["b"].tolist() == [1.0] * 7
    base = loaded["a"].numpy()
    while base.base is not None and isinstance(base.base, np.ndarray):
        base = base.base
    assert isinstance(base.base, __import__("mmap").mmap)  # the bytes are the file's mapping, not a copy
    loaded["a"][0] = 5.0  # private mapping (torch's MAP_PRIVATE): the file keeps its bytes
    assert torch.load(path)["a"][0].item() == 0.0
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
        torchpy.load(io.BytesIO(path.read_bytes()), mmap=True)
    ours = tmp_path / "ours.pt"
    torchpy.save({"x": torchpy.arange(5)}, ours)
    assert torchpy.load(ours, mmap=True)["x"].tolist() == [0, 1, 2, 3, 4]


def test_weights_only_refuses_what_torch_refuses_for_module(tmp_path):
    path = tmp_path / "model.pt"
    torch.save(torch.nn.Linear(2, 2), path)
    error = _both_refuse(path)
    assert "torch.nn.modules.linear.Linear" in str(error)
    assert type(torchpy.load(path, weights_only=False)) is torchpy.nn.Linear
    with tps.safe_globals([torchpy.nn.Linear]):  # the file says torch.nn...; torchpy's class answers
        model = torchpy.load(path)
    with torch.serialization.safe_globals([torch.nn.Linear]):
        reference = torch.load(path)
    assert type(model) is torchpy.nn.Linear and model.weight.tolist() == reference.weight.tolist()


def _legacy_state(lib):
    x = lib.arange(6.0).reshape(2, 3)
    return {"a": x, "b": x[1], "c": lib.ones(2, dtype=lib.int64), "h": lib.zeros(3, dtype=lib.bfloat16),
            "p": lib.nn.Parameter(lib.ones(2)), "n": [1, "s", None]}


@pytest.mark.parametrize("weights_only", [True, False])
def test_legacy_format_both_ways(tmp_path, weights_only):
    theirs = tmp_path / "torch_legacy.pt"
    torch.save(_legacy_state(torch), theirs, _use_new_zipfile_serialization=False)
    got = torchpy.load(theirs, weights_only=weights_only)
    assert got["a"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and got["c"].dtype == torchpy.int64
    assert got["b"].untyped_storage() is got["a"].untyped_storage() and got["b"].storage_offset() == 3
    assert type(got["p"]) is torchpy.nn.Parameter and got["n"] == [1, "s", None]
    assert got["h"].dtype == torchpy.bfloat16
    ours = tmp_path / "torchpy_legacy.pt"
    torchpy.save(_legacy_state(torchpy), ours, _use_new_zipfile_serialization=False)
    back = torch.load(ours, weights_only=weights_only)
    assert back["a"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and back["b"].storage_offset() == 3
    assert back["b"].untyped_storage().data_ptr() == back["a"].untyped_storage().data_ptr()
    assert isinstance(back["p"], torch.nn.Parameter) and back["h"].dtype == torch.bfloat16
    assert torchpy.load(ours, weights_only=weights_only)["c"].tolist() == [1, 1]
    meta = torchpy.load(theirs, map_location="meta")["a"]
    assert meta.device.type == "meta" and meta.shape == (2, 3)


def test_legacy_format_refusals(tmp_path):
    path = tmp_path / "legacy_point.pt"
    torch.save({"p": Point(1)}, path, _use_new_zipfile_serialization=False)
    error = _both_refuse(path)
    assert "Unsupported global" in str(error)
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
        torchpy.load(path, mmap=True)
    truncated = tmp_path / "legacy_truncated.pt"
    torch.save({"a": torch.ones(100)}, truncated, _use_new_zipfile_serialization=False)
    truncated.write_bytes(truncated.read_bytes()[:-50])
    with pytest.raises(RuntimeError, match="legacy_truncated.pt"):
        torchpy.load(truncated)
