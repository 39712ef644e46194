// ptxcast._core: the pybind11 extension under the Python package `ptxcast` (docs/python.md). Each
// function runs what the matching command runs (pipeline/Documents.h) and returns its
// `--format json` document as text; the package parses it into result objects. A bad input
// raises ptxcast.Error with the message the command prints. The GIL is released while C++ works.
#include "pipeline/Documents.h"
#include "pipeline/HeatMap.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace ptxcast::python {
namespace {

/// A ptxcast error on its way to Python (translated to ptxcast.Error).
class CoreError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Raises ptxcast.Error (defined by the package, python/ptxcast/_errors.py) for a CoreError.
void translate(std::exception_ptr P) {
  try {
    if (P)
      std::rethrow_exception(P);
  } catch (const CoreError &E) {
    py::object Cls = py::module_::import("ptxcast._errors").attr("Error");
    PyErr_SetString(Cls.ptr(), E.what());
  }
}

/// The document's text, or CoreError with the command's message.
std::string text(const support::Expected<nlohmann::ordered_json> &Doc) {
  if (!Doc)
    throw CoreError(Doc.error().str());
  return Doc->dump();
}

/// A Python callable as a progress callback that may run on analysis worker threads: it holds
/// no reference (the caller's argument keeps the callable alive) and takes the GIL to call it.
pipeline::ProgressFn progressOf(const py::object &Fn) {
  if (Fn.is_none())
    return {};
  return [Callable = py::handle(Fn)](size_t Done, size_t Total) {
    py::gil_scoped_acquire Gil;
    try {
      Callable(Done, Total);
    } catch (py::error_already_set &E) {
      E.discard_as_unraisable("ptxcast progress callback");
    }
  };
}

std::string predict(const std::string &Input, const py::bytes &Onnx, const std::string &Gpu,
                    int64_t Batch, const std::string &Dtype, int64_t ImageSize,
                    const std::string &Runtime, const std::string &Math, const std::string &Host,
                    const std::string &Model, const std::string &Calibrate, unsigned Threads,
                    const py::object &Progress) {
  pipeline::PredictRequest O;
  O.network.input = Input;
  O.network.onnxBytes = std::string(Onnx);
  O.network.batch = Batch;
  O.network.dtype = Dtype;
  O.network.imageSize = ImageSize;
  O.network.threads = Threads;
  O.network.progress = progressOf(Progress);
  O.gpu = Gpu;
  O.runtime = Runtime;
  O.math = Math;
  O.host = Host;
  O.model = Model;
  O.calibrate = Calibrate;
  py::gil_scoped_release NoGil;
  return text(pipeline::predictDocument(O));
}

std::string compare(const std::vector<std::string> &Models, const std::vector<py::bytes> &Onnx,
                    const std::vector<std::string> &Gpus, const std::vector<int64_t> &Batches,
                    bool MaxBatch, double BudgetMs, double TargetIps, const std::string &Dtype,
                    int64_t ImageSize,
                    const std::string &Runtime, const std::string &Math, const std::string &Host,
                    const std::string &Model, const std::string &Calibrate, unsigned Threads,
                    const py::object &Progress) {
  pipeline::CompareRequest O;
  O.models = Models;
  for (const py::bytes &B : Onnx)
    O.modelBytes.push_back(std::string(B));
  O.gpus = Gpus;
  O.batches = Batches;
  O.maxBatch = MaxBatch;
  O.budgetMs = BudgetMs;
  O.targetIps = TargetIps;
  O.dtype = Dtype;
  O.imageSize = ImageSize;
  O.runtime = Runtime;
  O.math = Math;
  O.host = Host;
  O.model = Model;
  O.calibrate = Calibrate;
  O.threads = Threads;
  if (pipeline::ProgressFn Fn = progressOf(Progress))
    O.progress = [Fn](size_t Done, size_t Total, const std::string &, int64_t) { Fn(Done, Total); };
  py::gil_scoped_release NoGil;
  return text(pipeline::compareDocument(std::move(O)));
}

std::string heatMapSvg(const std::string &CompareDocument, const std::string &Value) {
  auto V = pipeline::parsePlotValue(Value);
  if (!V)
    throw CoreError(V.error().str());
  return pipeline::heatMapSvg(
      pipeline::compareHeatMap(nlohmann::ordered_json::parse(CompareDocument), *V));
}

void writePlot(const std::string &Svg, const std::string &Path) {
  py::gil_scoped_release NoGil;
  if (auto E = pipeline::writePlot(Svg, Path))
    throw CoreError(E->str());
}

std::string analyze(const std::string &Input, const py::bytes &Onnx, int64_t Batch,
                    const std::string &Dtype, int64_t ImageSize, const std::string &Mode,
                    unsigned Threads) {
  pipeline::AnalyzeRequest O;
  O.input = Input;
  O.onnxBytes = std::string(Onnx);
  O.batch = Batch;
  O.dtype = Dtype;
  O.imageSize = ImageSize;
  O.mode = Mode;
  O.math = "simt"; // as predict and compare: the counts the shipped model describes
  O.kernels = "specialised";
  O.threads = Threads;
  py::gil_scoped_release NoGil;
  return text(pipeline::analyzeDocument(O));
}

std::string gpus(const std::vector<std::string> &Names) {
  return text(pipeline::gpusDocument(Names));
}

std::string zoo() { return text(pipeline::zooDocument()); }

} // namespace
} // namespace ptxcast::python

PYBIND11_MODULE(_core, M) {
  using namespace ptxcast::python;
  M.doc() = "ptxcast's C++ library; use the package `ptxcast`, not this module";
  py::register_exception_translator(&translate);
  M.def("predict", &predict, "`ptxcast predict --format json`");
  M.def("compare", &compare, "`ptxcast compare --format json`");
  M.def("analyze", &analyze, "`ptxcast analyze --format json`");
  M.def("gpus", &gpus, "`ptxcast gpus [NAME...] --format json`");
  M.def("zoo", &zoo, "`ptxcast zoo --format json`");
  M.def("heatmap_svg", &heatMapSvg, "the SVG of `ptxcast compare --plot` from its JSON document");
  M.def("write_plot", &writePlot, "writes an SVG to FILE.svg, or converted to FILE.png");
}
