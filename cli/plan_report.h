#pragma once
// The plan through the reporters (cli/reporter.h): the ranked candidates (row 1 is the
// recommendation) and the two baselines, one row each. The table reporter adds the plan's
// header above them, the rank stage's boundary and the baselines' descriptions between them,
// and the Horovod knobs, notes and the recommendation in one sentence below; the CSV reporter
// prints the rows alone. JSON is the plan's own schema (tune::plan_to_json).

#include <ostream>

#include "cli/output_format.h"
#include "planning/plan.h"

namespace topotune::cli {

/// Renders `plan` as `format` says (table or CSV), `rows` candidates at most (deterministic).
void print_plan_report(const tune::Plan& plan, OutputFormat format, std::ostream& out,
                       int rows = 15);

}  // namespace topotune::cli
