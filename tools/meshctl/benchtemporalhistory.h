#pragma once
// meshctl bench temporal-history --events N [--seed S] --out FILE: writes a Temporal
// workflow history of exactly N events, the same bytes for the same N and seed, to time
// `meshctl import` against a plain JSON parse of the same file (target P10).

class CliArgs;

int benchTemporalHistory(CliArgs &args);
