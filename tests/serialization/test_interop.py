"""torchpy.save / torchpy.load against real torch: files written by each side read by the other
(written at test time), every dtype, shared storages, the archive's layout."""

import collections
import io
import pathlib
import pickle
import pickletools
import zipfile

import numpy as np
import pytest
import torch

import torchpy

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128"]


def _values(lib, name):
    d = getattr(lib, name)
    base = lib.tensor([[0.5, -1.25, 3.0], [2.0, 0.0, -7.5]])
    if name == "bool":
        return base > 0
    if name.startswith("complex"):
        return base.to(d) * (1 - 2j)
    return base.to(d)


def _same(tp, t):
    """A torchpy tensor equals a torch tensor: values, dtype, shape, strides, offset."""
    assert str(tp.dtype) == str(t.dtype)
    assert tuple(tp.shape) == tuple(t.shape)
    assert tuple(tp.stride()) == tuple(t.stride())
    assert tp.storage_offset() == t.storage_offset()
    assert tp.requires_grad == t.requires_grad
    a = np.asarray(tp.detach().contiguous().view(torchpy.uint8).numpy() if tp.dtype == torchpy.bfloat16
                   else tp.detach().numpy())
    b = (t.detach().contiguous().view(torch.uint8).numpy() if t.dtype == torch.bfloat16 else t.detach().numpy())
    np.testing.assert_array_equal(a, b)


def _state(lib):
    x = lib.arange(12.0).reshape(3, 4)
    return collections.OrderedDict(
        weight=x, row=x[1], col=x[:, 2], t=x.t(),
        param=lib.nn.Parameter(lib.ones(3)),
        grad=lib.ones(2, requires_grad=True),
        nested={"list": [lib.zeros(2, dtype=lib.int64), 3, 2.5, "s", None, (1, 2)], "set": {1, 2}},
        dtype=lib.float16, device=lib.device("cpu"), size=lib.Size([2, 3]), layout=lib.strided,
        empty=lib.zeros(0, 3),
        **{f"d_{name}": _values(lib, name) for name in DTYPES},
    )


def _compare_state(tp_state, t_state):
    assert list(tp_state) == list(t_state)
    for key, value in t_state.items():
        got = tp_state[key]
        if isinstance(value, torch.Tensor):
            _same(got, value)
            assert isinstance(got, torchpy.nn.Parameter) == isinstance(value, torch.nn.Parameter)
    assert str(tp_state["dtype"]) == str(t_state["dtype"])
    assert str(tp_state["device"]) == str(t_state["device"])
    assert tuple(tp_state["size"]) == tuple(t_state["size"]) and type(tp_state["size"]) is torchpy.Size
    assert str(tp_state["layout"]) == str(t_state["layout"])
    assert tp_state["nested"]["list"][1:] == t_state["nested"]["list"][1:]
    assert tp_state["nested"]["set"] == {1, 2}
    _same(tp_state["nested"]["list"][0], t_state["nested"]["list"][0])


def test_torch_file_loads_in_torchpy(tmp_path):
    path = tmp_path / "from_torch.pt"
    torch.save(_state(torch), path)
    _compare_state(torchpy.load(path), torch.load(path))


def test_torchpy_file_loads_in_torch(tmp_path):
    path = tmp_path / "from_torchpy.pt"
    torchpy.save(_state(torchpy), path)
    _compare_state(torchpy.load(path), torch.load(path))
    loaded = torch.load(path, mmap=True)  # torch finds the records where it maps them
    _same(torchpy.load(path)["weight"], loaded["weight"])


def test_pickle_is_torchs(tmp_path):
    """The data.pkl torchpy writes is torch's, opcode for opcode, for tensors, views and parameters."""
    def ops(path):
        archive = zipfile.ZipFile(path)
        data = archive.read(archive.namelist()[0].split("/")[0] + "/data.pkl")
        return [(op.name, arg) for op, arg, _ in pickletools.genops(data)]

    def state(lib):
        x = lib.arange(6.0).reshape(2, 3)
        return collections.OrderedDict(a=x, b=x[1], p=lib.nn.Parameter(lib.ones(2)), h=lib.zeros(3, dtype=lib.bfloat16),
                                       g=lib.ones(2, requires_grad=True), s=lib.Size([2]), d=lib.float64)

    torch.save(state(torch), tmp_path / "x.pt")
    torchpy.save(state(torchpy), tmp_path / "y.pt")
    assert ops(tmp_path / "y.pt") == ops(tmp_path / "x.pt")


def test_archive_layout_matches_torch(tmp_path):
    torch.save({"a": torch.ones(3)}, tmp_path / "ckpt.pt")
    torchpy.save({"a": torchpy.ones(3)}, tmp_path / "ckpt2.pt")
    theirs = zipfile.ZipFile(tmp_path / "ckpt.pt")
    ours = zipfile.ZipFile(tmp_path / "ckpt2.pt")
    strip = lambda z: [n.split("/", 1)[1] for n in z.namelist()]  # noqa: E731
    assert strip(ours) == strip(theirs)
    assert ours.namelist()[0] == "ckpt2/data.pkl"
    for name in ("byteorder", "version", ".format_version", ".storage_alignment"):
        assert ours.read(f"ckpt2/{name}") == theirs.read(f"ckpt/{name}")
    raw = (tmp_path / "ckpt2.pt").read_bytes()
    for info in ours.infolist():  # every record's data starts 64-byte aligned, stored uncompressed
        assert info.compress_type == zipfile.ZIP_STORED
        name_len, extra_len = np.frombuffer(raw[info.header_offset + 26:info.header_offset + 30], "<u2")
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0
    assert len(ours.read("ckpt2/.data/serialization_id")) == 40


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_both_ways(tmp_path, name):
    torch.save(_values(torch, name), tmp_path / "t.pt")
    _same(torchpy.load(tmp_path / "t.pt"), torch.load(tmp_path / "t.pt"))
    torchpy.save(_values(torchpy, name), tmp_path / "p.pt")
    _same(torchpy.load(tmp_path / "p.pt"), torch.load(tmp_path / "p.pt"))


def test_views_load_sharing_one_storage(tmp_path):
    x = torchpy.arange(10.0)
    torchpy.save([x[2:5], x[::2], x], tmp_path / "v.pt")
    for loaded_a, loaded_b, loaded_x in (torchpy.load(tmp_path / "v.pt"), torch.load(tmp_path / "v.pt")):
        assert loaded_a.untyped_storage().data_ptr() == loaded_x.untyped_storage().data_ptr()
        assert loaded_a.storage_offset() == 2 and loaded_b.stride() == (2,)
        loaded_x[4] = 100
        assert loaded_a[2].item() == 100 and loaded_b.tolist() == [0, 2, 100, 6, 8]
    assert len([n for n in zipfile.ZipFile(tmp_path / "v.pt").namelist() if "/data/" in n]) == 1


def test_torch_views_load_shared_in_torchpy(tmp_path):
    x = torch.arange(10.0)
    torch.save({"a": x[2:5], "x": x}, tmp_path / "v.pt")
    got = torchpy.load(tmp_path / "v.pt")
    got["x"][3] = -1
    assert got["a"].tolist() == [2.0, -1.0, 4.0]
    assert got["a"].untyped_storage() is got["x"].untyped_storage()


def test_same_storage_as_two_dtypes_refused():
    x = torchpy.zeros(4)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        torchpy.save([x, x.view(torchpy.int32)], io.BytesIO())
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        torch.save([torch.zeros(4), torch.zeros(4)[:].view(torch.int32)][:0] or
                   [t := torch.zeros(4), t.view(torch.int32)], io.BytesIO())


def test_file_like_objects_and_paths(tmp_path):
    buffer = io.BytesIO()
    torchpy.save({"a": torchpy.ones(2)}, buffer)
    buffer.seek(0)
    assert torch.load(buffer)["a"].tolist() == [1.0, 1.0]
    assert zipfile.ZipFile(io.BytesIO(buffer.getvalue())).namelist()[0] == "archive/data.pkl"
    buffer.seek(0)
    assert torchpy.load(buffer)["a"].tolist() == [1.0, 1.0]
    theirs = io.BytesIO()
    torch.save(torch.arange(3), theirs)
    theirs.seek(0)
    assert torchpy.load(theirs).tolist() == [0, 1, 2]
    path = tmp_path / "p.pt"
    torchpy.save(torchpy.ones(1), str(path))
    assert torchpy.load(pathlib.Path(path)).tolist() == [1.0]
    with open(path, "rb") as f:
        assert torchpy.load(f).tolist() == [1.0]


def test_pickle_module_and_weights_only_false(tmp_path):
    torchpy.save({"a": torchpy.ones(2)}, tmp_path / "m.pt", pickle_module=pickle)
    assert torchpy.load(tmp_path / "m.pt", pickle_module=pickle)["a"].tolist() == [1.0, 1.0]
    assert torchpy.load(tmp_path / "m.pt", weights_only=False)["a"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module is specified"):
        torchpy.load(tmp_path / "m.pt", pickle_module=pickle, weights_only=True)


def test_whole_module_round_trip_weights_only_false(tmp_path):
    model = torchpy.nn.Linear(3, 2)
    torchpy.save(model, tmp_path / "model.pt")
    loaded = torchpy.load(tmp_path / "model.pt", weights_only=False)
    assert type(loaded) is torchpy.nn.Linear
    assert loaded.weight.tolist() == model.weight.tolist()
    assert "torch.nn.modules.linear" in str(zipfile.ZipFile(tmp_path / "model.pt").read("model/data.pkl"))


def test_load_state_dict_from_either_side(tmp_path):
    torch.manual_seed(0)
    reference = torch.nn.Linear(4, 3)
    torch.save(reference.state_dict(), tmp_path / "sd.pt")
    model = torchpy.nn.Linear(4, 3)
    model.load_state_dict(torchpy.load(tmp_path / "sd.pt"))
    assert model.weight.tolist() == reference.weight.tolist()
    torchpy.save(model.state_dict(), tmp_path / "sd2.pt")
    back = torch.nn.Linear(4, 3)
    back.load_state_dict(torch.load(tmp_path / "sd2.pt"))
    assert back.bias.tolist() == reference.bias.tolist()


def test_namespace_entry_points():
    assert torchpy.save is torchpy.serialization.save and torchpy.load is torchpy.serialization.load
    assert torchpy.serialization.DEFAULT_PROTOCOL == torch.serialization.DEFAULT_PROTOCOL == 2


def test_tensor_attributes_both_ways():
    theirs = torch.ones(2)
    theirs.note = "kept"
    buffer = io.BytesIO()
    torch.save(theirs, buffer)
    buffer.seek(0)
    loaded = torchpy.load(buffer)
    assert type(loaded) is torchpy.Tensor and loaded.note == "kept" and loaded.tolist() == [1.0, 1.0]
    ours = torchpy.ones(2)
    ours.note = "kept"
    buffer = io.BytesIO()
    torchpy.save(ours, buffer)
    buffer.seek(0)
    back = torch.load(buffer)
    assert type(back) is torch.Tensor and back.note == "kept"


def test_optimizer_checkpoint_both_ways():
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.ones(2)).sum().backward()
    optimizer.step()
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3}, buffer)
    buffer.seek(0)
    checkpoint = torchpy.load(buffer)
    ours = torchpy.nn.Linear(2, 2)
    ours_optimizer = torchpy.optim.SGD(ours.parameters(), lr=0.5, momentum=0.9)
    ours.load_state_dict(checkpoint["model"])
    ours_optimizer.load_state_dict(checkpoint["optimizer"])
    assert checkpoint["epoch"] == 3 and ours_optimizer.param_groups[0]["lr"] == 0.1
    buffer = io.BytesIO()
    torchpy.save({"optimizer": ours_optimizer.state_dict()}, buffer)
    buffer.seek(0)
    again = torch.optim.SGD(model.parameters(), lr=1.0, momentum=0.9)
    again.load_state_dict(torch.load(buffer)["optimizer"])
    expected = optimizer.state_dict()
    got = again.state_dict()
    assert got["param_groups"] == expected["param_groups"]
    for key in expected["state"]:
        assert torch.equal(got["state"][key]["momentum_buffer"], expected["state"][key]["momentum_buffer"])
