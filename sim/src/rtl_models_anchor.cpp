// Anchor source: the Verilated models are added to this library by verilate().
