// Go's character classes as the lexer uses them.
import { describe, expect, it } from "vitest";
import { GO_SPACE, isGoSpace, isGoSpaceCode } from "../../../src/dockerfile/text.js";

describe("Go's unicode.IsSpace", () => {
  it("the RegExp form finds exactly the code units isGoSpaceCode accepts, over the whole BMP", () => {
    const disagree: number[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const ch = String.fromCharCode(code);
      GO_SPACE.lastIndex = 0;
      if (GO_SPACE.test(ch) !== isGoSpaceCode(code) || isGoSpace(ch) !== isGoSpaceCode(code))
        disagree.push(code);
    }
    expect(disagree).toEqual([]);
  });
});
