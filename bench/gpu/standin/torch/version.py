"""Stand-in for torch.version."""

cuda = "0.0-standin"
