package main

func foundationReading(meta reportMeta, rs []result) string { return "" }
