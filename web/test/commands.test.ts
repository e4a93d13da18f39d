import { describe, expect, it } from "vitest";
import type { CustomCommand } from "../src/api";
import { matchingCommands, pickedCommand } from "../src/commands";

const review: CustomCommand = { name: "review", description: "Review a file", argument_hint: "FILE", scope: "project" };
const release: CustomCommand = { name: "release-notes", description: "Write the release notes", scope: "user" };
const commands = [release, review];

describe("custom commands on the page", () => {
  it("offers every command after a lone slash and narrows by the typed name", () => {
    expect(matchingCommands(commands, "/")).toEqual([release, review]);
    expect(matchingCommands(commands, "  /re")).toEqual([release, review]);
    expect(matchingCommands(commands, "/rev")).toEqual([review]);
    expect(matchingCommands(commands, "/nothing")).toEqual([]);
  });

  it("offers nothing once arguments are typed, or for input that is no command", () => {
    expect(matchingCommands(commands, "/review src/a.py")).toEqual([]);
    expect(matchingCommands(commands, "review the code")).toEqual([]);
    expect(matchingCommands([], "/")).toEqual([]);
  });

  it("picking a command leaves room for its arguments", () => {
    expect(pickedCommand(review)).toBe("/review ");
  });
});
