"""Runs docs_program.docs() (the declarations docs/resources shows in Python) under Pulumi's mocks, and writes
each resource's inputs, as the SDK sends them to the engine, to the JSON file named by argv[1]."""

import json
import sys

import pulumi

seen = {}


class Mocks(pulumi.runtime.Mocks):
    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        seen[args.name] = args.inputs
        return [args.name + "-id", args.inputs]

    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}


pulumi.runtime.set_mocks(Mocks(), project="docs", stack="check", preview=False)

import docs_program  # noqa: E402  (after the mocks, as Pulumi's unit tests import their program)



@pulumi.runtime.test
def declare():
    # The decorator waits for every registration the declarations started.
    docs_program.docs()
    return pulumi.Output.from_input(None)


declare()
with open(sys.argv[1], "w") as f:
    json.dump(seen, f, indent=2, sort_keys=True)
