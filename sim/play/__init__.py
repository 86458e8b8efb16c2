"""Game loops: the compiled loops, the stepped loop for Python strategies, batch play,
conformance and the engine benchmark."""
