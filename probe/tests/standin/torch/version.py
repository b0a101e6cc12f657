"""Stand-in for torch.version."""

cuda = "12.4"
