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

    def test_a_module_without_an_input_shape_gets_a_default_it_names(self):
        module = torchvision.models.resnet18().train()
        got = ptxcast.predict(module, gpu="h100", progress=False)
        self.assertEqual(got.image_size, 224)
        self.assertEqual(got.warnings[0], "input_shape not given: (3, 224, 224), the ImageNet "
                         "default; pass input_shape=(C, H, W) to predict another")
        self.assertTrue(module.training)  # the export restores the module's mode

    def test_default_input_shapes_follow_torchvision(self):
        from ptxcast._models import default_input_shape
        self.assertEqual(default_input_shape(torchvision.models.inception_v3(
            init_weights=False, aux_logits=False))[0], (3, 299, 299))
        self.assertEqual(default_input_shape(torchvision.models.vit_b_16())[0], (3, 224, 224))
        self.assertEqual(default_input_shape(torchvision.models.vit_b_16(image_size=384))[0],
                         (3, 384, 384))
        self.assertEqual(default_input_shape(torchvision.models.mobilenet_v2())[0],
                         (3, 224, 224))


if __name__ == "__main__":
    unittest.main()
