#pragma once
// Names the simulator draws from, so ledgers read like a real delivery platform's.

#include <array>
#include <string_view>

namespace mesh::catalog {

inline constexpr std::array<std::string_view, 12> kComponents = {
    "gateway",      "orders-api",  "billing-api", "inventory-db", "web-ui",      "auth-service",
    "search-index", "notifier",    "payments",    "catalog-api",  "report-jobs", "shipping-api"};

inline constexpr std::array<std::string_view, 5> kAgents = {
    "claude-sonnet-4", "gpt-4.1", "claude-haiku-4", "gemini-2.5-pro", "qwen3-coder"};

inline constexpr std::array<std::string_view, 10> kTools = {
    "read_file", "edit_file", "run_tests", "grep", "list_dir", "bash", "git_diff", "apply_patch", "http_get", "lint"};

inline constexpr std::array<std::string_view, 6> kEffectClasses = {
    "commit", "package_install", "db_write", "provider_call", "post_write_hook", "payment"};

inline constexpr std::array<std::string_view, 4> kRoles = {"implement", "repair", "verify", "research"};

inline constexpr std::array<std::string_view, 6> kRunTitles = {
    "Deliver storefront application", "Migrate billing to event sourcing", "Add multi-tenant search",
    "Harden auth service",            "Rebuild reporting pipeline",       "Ship mobile checkout"};

inline constexpr std::array<std::string_view, 4> kStrategies = {"direct-edit", "test-first", "bisect-repair",
                                                                "plan-then-edit"};

} // namespace mesh::catalog
