"""Int8 activations scaled row by row: a text's vector does not depend on its batch.

``quantize_dynamic`` quantizes each matrix product's input with one scale for the whole batch,
so a text's vector moved with its batch neighbours. This pass gives every row of an activation
(one token of one text) its own scale and int8 values: the row's integer product is exact and
the scales are applied after it, so a text's vector is the same alone and in any batch (to
float rounding), and each token keeps more of its precision.

Each ``DynamicQuantizeLinear`` becomes the row's scale ``max|x| / 127`` and
``QuantizeLinear(x * 127 / max|x|, 1, 128)`` (uint8, the operand onnxruntime's fast int8
kernels take); each ``MatMulInteger -> Cast -> Mul`` reading it becomes one
``MatMulIntegerToFloat`` with the weight scales, then a ``Mul`` by the row scale.
onnxruntime's own fusions assume one activation scale and would give wrong vectors."""

from __future__ import annotations

from typing import Any

__all__ = ["RowQuantizationError", "quantize_rows"]

_MS = "com.microsoft"
_ONE, _INT8_MAX, _EPS, _ZERO_POINT = "rowq_one", "rowq_127", "rowq_eps", "rowq_zero_point"


class RowQuantizationError(ValueError):
    """The quantized graph is not shaped as this pass expects; the message says where."""


def quantize_rows(model: Any) -> None:
    """Rewrite ``model`` (an ``onnx.ModelProto`` made by ``quantize_dynamic``) in place so that
    each activation row is quantized with its own scale."""
    import numpy as np
    from onnx import helper, numpy_helper

    graph = model.graph
    graph.initializer.extend([
        numpy_helper.from_array(np.array(1.0, np.float32), _ONE),
        numpy_helper.from_array(np.array(127.0, np.float32), _INT8_MAX),
        numpy_helper.from_array(np.array(1e-12, np.float32), _EPS),
        numpy_helper.from_array(np.array(128, np.uint8), _ZERO_POINT)])
    row_scale: dict[str, str] = {}  # a quantized activation -> its rows' scales
    nodes: list[Any] = []
    for node in graph.node:
        if node.op_type == "DynamicQuantizeLinear":
            nodes += _row_quantizer(helper, node)
            row_scale[node.output[0]] = f"{node.name}_row_scale"
        else:
            nodes.append(node)
    nodes = _fuse_products(helper, nodes, row_scale, {i.name for i in graph.initializer})
    del graph.node[:]
    graph.node.extend(nodes)
    if not any(o.domain == _MS for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(_MS, 1))


def _row_quantizer(helper: Any, node: Any) -> list[Any]:
    """The nodes that quantize ``node``'s input row by row into its first output; its scale
    and zero point outputs are no longer made (their readers are rewritten)."""
    x, quantized = node.input[0], node.output[0]
    p = f"{node.name}_row"
    return [
        helper.make_node("Abs", [x], [f"{p}_abs"], name=f"{p}_abs"),
        helper.make_node("ReduceMax", [f"{p}_abs"], [f"{p}_max"], name=f"{p}_max", axes=[-1],
                         keepdims=1),
        helper.make_node("Max", [f"{p}_max", _EPS], [f"{p}_bound"], name=f"{p}_bound"),
        helper.make_node("Div", [f"{p}_bound", _INT8_MAX], [f"{p}_scale"], name=f"{p}_scale"),
        helper.make_node("Div", [_INT8_MAX, f"{p}_bound"], [f"{p}_inverse"],
                         name=f"{p}_inverse"),
        helper.make_node("Mul", [x, f"{p}_inverse"], [f"{p}_scaled"], name=f"{p}_scaled"),
        helper.make_node("QuantizeLinear", [f"{p}_scaled", _ONE, _ZERO_POINT], [quantized],
                         name=f"{p}_quantize"),
    ]


def _fuse_products(helper: Any, nodes: list[Any], row_scale: dict[str, str],
                   constants: set[str]) -> list[Any]:
    """Each ``MatMulInteger -> Cast -> Mul`` on a row-quantized input as one
    ``MatMulIntegerToFloat`` with the weight's scales, then a ``Mul`` by the row scales; the
    ``Mul`` that multiplied the old activation scale by the weight's goes."""
    producer = {out: node for node in nodes for out in node.output}
    readers: dict[str, list[Any]] = {}
    for node in nodes:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    dropped: set[int] = set()
    replaced: dict[int, list[Any]] = {}
    for node in nodes:
        if node.op_type != "MatMulInteger" or node.input[0] not in row_scale:
            continue
        cast = _only_reader(readers, node.output[0], "Cast")
        rescale = _only_reader(readers, cast.output[0], "Mul")
        scales = producer[next(i for i in rescale.input if i != cast.output[0])]
        weight_scales = [i for i in scales.input if i in constants]
        if scales.op_type != "Mul" or len(weight_scales) != 1:
            raise RowQuantizationError(f"{node.name}: its scales are not the activation's "
                                       "times the weight's")
        weight_scale = weight_scales[0]
        a, b, _, b_zero = node.input
        product = f"{rescale.output[0]}_by_column"
        replaced[id(node)] = [
            helper.make_node("MatMulIntegerToFloat", [a, b, _ONE, weight_scale, _ZERO_POINT,
                                                      b_zero], [product], name=f"{node.name}_f",
                             domain=_MS),
            helper.make_node("Mul", [product, row_scale[a]], [rescale.output[0]],
                             name=f"{node.name}_by_row")]
        dropped |= {id(cast), id(rescale), id(scales)}
    if not replaced:
        raise RowQuantizationError("no quantized matrix product reads a quantized activation")
    out: list[Any] = []
    for node in nodes:
        if id(node) not in dropped:
            out += replaced.get(id(node), [node])
    return out


def _only_reader(readers: dict[str, list[Any]], name: str, op_type: str) -> Any:
    found = readers.get(name, [])
    if len(found) != 1 or found[0].op_type != op_type:
        raise RowQuantizationError(f"{name} is not read by one {op_type} alone")
    return found[0]
