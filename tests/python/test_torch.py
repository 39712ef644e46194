"""torchvision model objects (Debian's python3-torchvision, CPU only): ptxcast.predict exports
them to ONNX in memory, and the time equals the CLI's on the same export written to a file."""

import math
import os
import unittest

import ptxcast
from support import cli_json, scratch

try:
    import torch
    import torchvision
except ImportError:  # scripts/setup.sh installs them; elsewhere the test says what is missing
    torch = None


@unittest.skipIf(torch is None, "python3-torch / python3-torchvision not installed")
class TorchModelTest(unittest.TestCase):
    def check(self, module, name):
        torch.manual_seed(0)
        got = ptxcast.predict(module, gpu="h100", batch=2, input_shape=(3, 224, 224),
                              progress=False)
        self.assertEqual(got.network, type(module).__name__)
        self.assertEqual((got.batch, got.image_size), (2, 224))
        with scratch() as work:
            path = os.path.join(work, name + ".onnx")
            with open(path, "wb") as f:
                f.write(ptxcast.export_onnx(module, (3, 224, 224)))
            want = cli_json("predict", path, "--gpu", "h100", "--batch", "2")
        self.assertEqual(got.launches, want["launches"])
        self.assertTrue(math.isclose(got.time_ms, want["time_ms"], rel_tol=1e-3),
                        (got.time_ms, want["time_ms"]))

    def test_resnet18(self):
        self.check(torchvision.models.resnet18(), "resnet18")

    def test_mobilenet_v2(self):
        self.check(torchvision.models.mobilenet_v2(), "mobilenet_v2")

    def test_a_module_needs_an_input_shape_and_keeps_its_mode(self):
        module = torchvision.models.resnet18().train()
        with self.assertRaisesRegex(ptxcast.Error, "input_shape"):
            ptxcast.predict(module, gpu="h100")
        ptxcast.export_onnx(module, (3, 64, 64))
        self.assertTrue(module.training)


if __name__ == "__main__":
    unittest.main()
