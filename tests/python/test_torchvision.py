"""Every torchvision classification CNN predicts (docs/onnx.md, "torchvision"): the list in
scripts/torchvision_cnns.py is torchvision's classification models less the vision transformers,
and its FAST subset (the models with forms the importer folds: DenseNet's and Inception's padded
average pools, ConvNeXt's decomposed layer norm; and three quick ones) is exported at batch 1,
imported, lowered, fast-analysed and predicted here. The script predicts all 68."""

import importlib.util
import math
import os
import unittest
import warnings

import ptxcast

try:
    import torch
    import torchvision
except ImportError:  # scripts/setup.sh installs them; elsewhere the test says what is missing
    torch = None

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "torchvision_cnns.py")
spec = importlib.util.spec_from_file_location("torchvision_cnns", SCRIPT)
cnns = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cnns)


@unittest.skipIf(torch is None, "python3-torch / python3-torchvision not installed")
class TorchvisionTest(unittest.TestCase):
    predictions = {}  # model -> ptxcast.Prediction, or the exception it raised

    @classmethod
    def setUpClass(cls):
        warnings.filterwarnings("ignore")  # the exporter's notes on traced shapes
        for name in cnns.FAST:
            try:
                cls.predictions[name] = cnns.predict(name, "h100")
            except Exception as e:  # reported by the test of that model
                cls.predictions[name] = e

    def launches(self, name, strategy):
        p = self.predictions[name]
        return sum(k["launches"] for k in p.json["breakdown"] if k["kind"] == strategy)

    def test_the_list_is_every_classification_cnn(self):
        models = torchvision.models
        names = [n for n in models.list_models(module=models)
                 if not n.startswith(cnns.TRANSFORMER_PREFIXES)]
        self.assertEqual(sorted(cnns.CNNS), sorted(names))
        self.assertEqual(len(cnns.CNNS), 68)
        self.assertLessEqual(set(cnns.FAST), set(cnns.CNNS))

    def test_one_model_of_each_family_predicts(self):
        for name in cnns.FAST:
            with self.subTest(model=name):
                p = self.predictions[name]
                self.assertIsInstance(p, ptxcast.Prediction, str(p))
                self.assertEqual(p.network, name)
                self.assertEqual(p.image_size, cnns.IMAGE_SIZE.get(name, 224))
                self.assertGreater(p.launches, 10)
                self.assertTrue(math.isfinite(p.time_ms) and p.time_ms > 0, p.time_ms)

    def test_folded_forms_are_one_launch_each(self):
        # ConvNeXt-T's 23 layer norms (stem, 18 blocks, 3 downsamplings, head), each exported as
        # nine nodes: one layernorm launch each.
        self.assertEqual(self.launches("convnext_tiny", "layernorm"), 23)
        # DenseNet-121's 3 transitions (a Pad of nothing, then a 2x2 pool) and Inception v3's 9
        # branch pools (Pad 1, then a 3x3 pool counting the zeros): one pool_avg launch each.
        self.assertEqual(self.launches("densenet121", "pool_avg"), 3)
        self.assertEqual(self.launches("inception_v3", "pool_avg"), 9)


if __name__ == "__main__":
    unittest.main()
