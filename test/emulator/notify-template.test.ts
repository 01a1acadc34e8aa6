/**
 * The custom webhook's Go text/template renderer. Expected outputs are Go's documented behaviour: axiomhq/docs
 * `content/docs/(documentation)/monitor-data/custom-webhook-notifier.mdx` (the default template, its sample body,
 * the incident.io example), pkg.go.dev/text/template (actions, truth, variables, functions, trim markers),
 * pkg.go.dev/fmt (verbs, format errors) and go.dev/src/strconv/ftoa.go (when %v of a float64 takes an exponent).
 */
import {
  DEFAULT_WEBHOOK_TEMPLATE,
  renderWebhookBody,
  TemplateError,
} from "../../emulator/alerting/notify/custom-webhook";
import { goSprintf } from "../../provider/go-template/go-fmt";
import type { AlertEvent } from "../../emulator/alerting/notify";

/** The docs' sample event: a threshold monitor triggering (custom-webhook-notifier.mdx, "Examples"). */
const docsSample: AlertEvent = {
  time: 1719586557631364493n, // 2024-06-28 14:55:57.631364493 UTC, the sample's queryEndTime
  monitor: {
    id: "CabI3w142069etTgd0",
    name: "Axiom Monitor Test Triggered",
    description: "",
    type: "Threshold",
  },
  action: "Open",
  value: 57347,
  queryStartTime: 1719585957631364493n,
  queryEndTime: 1719586557631364493n,
  groupKeys: null,
  groupValues: null,
  matchedEvent: null,
  body: "Current value of 57347 is above or equal to the threshold value of 0",
};

/** The sample body the docs page gives for the default template over that event. */
const docsSampleBody = `{
  "action": "Open",
  "event": {
    "monitorID": "CabI3w142069etTgd0",
    "body": "Current value of 57347 is above or equal to the threshold value of 0",
    "description": "",
    "queryEndTime": "2024-06-28 14:55:57.631364493 +0000 UTC",
    "queryStartTime": "2024-06-28 14:45:57.631364493 +0000 UTC",
    "timestamp": "2024-06-28 14:55:57 +0000 UTC",
    "title": "Axiom Monitor Test Triggered",
    "value": 57347,
    "matchedEvent": null,
    "groupKeys": null,
    "groupValues": null
  }
}`;

const grouped: AlertEvent = {
  ...docsSample,
  action: "Closed",
  value: 0,
  groupKeys: ["service", "status"],
  groupValues: ["checkout", "500"],
};

const matched: AlertEvent = {
  ...docsSample,
  monitor: { id: "mon_match", name: "Fatal", type: "MatchEvent" },
  value: null,
  matchedEvent: {
    service: "api",
    level: "fatal",
    duration: 1234567,
    msg: "a <b> & c",
    nested: { z: 1, a: [1, "x"] },
  },
  body: '{"level":"fatal"}',
};

/** The sample with a matched event too, for the semantics table. */
const rich: AlertEvent = { ...docsSample, matchedEvent: matched.matchedEvent };

function render(template: string, event: AlertEvent = docsSample): string {
  return renderWebhookBody(template, event);
}

function renderError(template: string, event: AlertEvent = docsSample): TemplateError {
  try {
    render(template, event);
  } catch (e) {
    if (e instanceof TemplateError) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(template)} to fail`);
}

describe("the docs' custom webhook page (axiomhq/docs monitor-data/custom-webhook-notifier.mdx)", () => {
  it("renders the default template over the docs' sample event as the docs' sample body", () => {
    expect(render(DEFAULT_WEBHOOK_TEMPLATE)).toBe(docsSampleBody);
  });

  it("renders the incident.io example: status firing on Open, resolved on Closed", () => {
    const template = `{
  "title": "{{.Title}}",
  "description": "{{.Body}}",
  "deduplication_key": "{{.MonitorID}}",
  "status": "{{ if eq .Action "Open" }}firing{{ else }}resolved{{ end }}",
  "metadata": {
    "description": "{{.Description}}",
    "value": {{.Value}}
  }
}`;
    const open = JSON.parse(render(template));
    expect(open).toEqual({
      title: "Axiom Monitor Test Triggered",
      description: "Current value of 57347 is above or equal to the threshold value of 0",
      deduplication_key: "CabI3w142069etTgd0",
      status: "firing",
      metadata: { description: "", value: 57347 },
    });
    expect(JSON.parse(render(template, grouped)).status).toBe("resolved");
  });

  it("writes group keys and values as JSON arrays, and a matched event as a JSON object with sorted keys", () => {
    const out = JSON.parse(render(DEFAULT_WEBHOOK_TEMPLATE, grouped));
    expect(out.event.groupKeys).toEqual(["service", "status"]);
    expect(out.event.groupValues).toEqual(["checkout", "500"]);
    expect(out.event.value).toBe(0);
    expect(out.action).toBe("Closed");
    // Go's json.Marshal sorts map keys and escapes <, > and & (its HTML-safe default).
    expect(render("{{jsonObject .MatchedEvent}}", matched)).toBe(
      '{"duration":1234567,"level":"fatal","msg":"a \\u003cb\\u003e \\u0026 c","nested":{"a":[1,"x"],"z":1},"service":"api"}',
    );
  });
});

describe("text/template semantics (pkg.go.dev/text/template)", () => {
  it.each([
    ["a field", "{{.Title}}", "Axiom Monitor Test Triggered"],
    ["a field of a map", "{{.MatchedEvent.service}}", "api"],
    ["a nested map field", "{{.MatchedEvent.nested.z}}", "1"],
    ["a missing map key: <no value>", "{{.MatchedEvent.nope}}", "<no value>"],
    ["a pipeline into printf", '{{ .Title | printf "%q" }}', '"Axiom Monitor Test Triggered"'],
    ["a parenthesized pipeline", '{{ (printf "%s-%s" "a" "b") | len }}', "3"],
    ["if/else if/else", '{{if eq .Action "Closed"}}c{{else if eq .Action "Open"}}o{{else}}x{{end}}', "o"],
    [
      "truth: empty string, 0, nil are false",
      '{{if ""}}a{{end}}{{if 0}}b{{end}}{{if .GroupKeys}}c{{end}}{{if "x"}}d{{end}}',
      "d",
    ],
    ["with sets dot", "{{with .MatchedEvent.nested}}{{.z}}{{end}}", "1"],
    ["with else on an empty value", "{{with .MatchedEvent.nope}}yes{{else}}no{{end}}", "no"],
    [
      "range over a slice with index",
      "{{range $i, $v := .MatchedEvent.nested.a}}{{$i}}:{{$v}} {{end}}",
      "0:1 1:x ",
    ],
    [
      "range over a map in key order",
      "{{range $k, $v := .MatchedEvent.nested}}{{$k}}={{$v}};{{end}}",
      "a=[1 x];z=1;",
    ],
    ["range else on an empty list", "{{range .GroupValues}}{{.}}{{else}}none{{end}}", "none"],
    ["range over an int (Go 1.22)", "{{range 3}}{{.}}{{end}}", "012"],
    [
      "break and continue",
      "{{range 5}}{{if eq . 1}}{{continue}}{{end}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}",
      "02",
    ],
    ["variables: declare and assign in an inner scope", "{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}", "2"],
    ["$ is the data", "{{with .MatchedEvent}}{{$.Title}}{{end}}", "Axiom Monitor Test Triggered"],
    ["trim markers", "a  {{- .MatchedEvent.level -}}  b\n", "afatalb\n"],
    ["comments", "a{{/* a comment\nover lines */}}b{{- /* trimmed */ -}} c", "abc"],
    ["and/or return an operand", '{{and 1 0 2}} {{or 0 "" "x"}} {{not 0}}', "0 x true"],
    ["and short-circuits (Go 1.18)", "{{and .GroupKeys (index .GroupKeys 5)}}", "[]"],
    ["eq with several operands", '{{eq .Action "Closed" "Open"}}', "true"],
    [
      "lt/le/gt/ge on floats",
      "{{lt .Value 60000.0}} {{le .Value 57347.0}} {{gt .Value 1.5}} {{ge .Value 57348.0}}",
      "true true true false",
    ],
    ["ne on strings", '{{ne .Action "Open"}}', "false"],
    [
      "eq against nil: a nil slice is nil, a string is not",
      "{{eq .GroupKeys nil}} {{eq .Title nil}} {{eq .MatchedEvent nil}}",
      "true false false",
    ],
    ["len counts bytes of a string", '{{len "héllo"}} {{len .MatchedEvent}}', "6 5"],
    [
      "index into slices, maps and strings",
      '{{index .MatchedEvent.nested.a 1}} {{index .MatchedEvent "level"}} {{index "abc" 1}}',
      "x fatal 98",
    ],
    ["slice", '{{slice "abcdef" 1 3}}', "bc"],
    ["print: spaces between operands when neither is a string", '{{print 1 2 "a" "b" 3}}', "1 2ab3"],
    ["println", '{{println "a" 1}}', "a 1\n"],
    ["html", `{{html "<a href='x'>&"}}`, "&lt;a href=&#39;x&#39;&gt;&amp;"],
    ["js", `{{js "it's <b>"}}`, "it\\'s \\u003Cb\\u003E"],
    ["urlquery", '{{urlquery "a b&c=d"}}', "a+b%26c%3Dd"],
    [
      "a float64 prints with %v: exponent from 1e+06",
      "{{.MatchedEvent.duration}} {{.Value}}",
      "1.234567e+06 57347",
    ],
    [
      "time methods",
      '{{.Timestamp.Unix}} {{.QueryEndTime.Format "2006-01-02T15:04:05.000Z07:00"}}',
      "1719586557 2024-06-28T14:55:57.631Z",
    ],
    ["a raw string and a rune", "{{`a\\n`}} {{'a'}}", "a\\n 97"],
    ["a rune with %c", `{{printf "%c%c" 'G' 'o'}}`, "Go"],
    [
      "time fields",
      "{{.QueryEndTime.Year}}-{{.QueryEndTime.Day}} {{.QueryEndTime.Hour}}:{{.QueryEndTime.Minute}}:{{.QueryEndTime.Second}}.{{.QueryEndTime.Nanosecond}} day {{.QueryEndTime.YearDay}}",
      "2024-28 14:55:57.631364493 day 180",
    ],
    ["define and template", '{{define "t"}}[{{.}}]{{end}}{{template "t" .Action}}', "[Open]"],
    [
      "else with",
      "{{with .MatchedEvent.nope}}a{{else with .MatchedEvent.level}}{{.}}{{else}}c{{end}}",
      "fatal",
    ],
    ["trim markers around else", "{{if false}}a{{- else -}}  \n b {{- end}}", "b"],
    ["block", '{{block "b" .Title}}<{{.}}>{{end}}', "<Axiom Monitor Test Triggered>"],
  ])("%s", (_name, template, expected) => {
    expect(render(template, rich)).toBe(expected);
  });

  it("prints absent group keys as a nil slice ([]) and an absent matched event as a nil map (map[])", () => {
    expect(render("{{.GroupKeys}}|{{.MatchedEvent}}|{{.MatchedEvent.x}}|{{len .GroupValues}}")).toBe(
      "[]|map[]|<no value>|0",
    );
  });
});

describe("fmt's printf (pkg.go.dev/fmt)", () => {
  it.each([
    ["%d", [42n], "42"],
    ["%5d|%-5d|%05d", [42n, 42n, -42n], "   42|42   |-0042"],
    ["%s %q", ["hi", 'a"b\n'], 'hi "a\\"b\\n"'],
    ["%v %v %v", [1e6, 123456.0, 0.0001], "1e+06 123456 0.0001"],
    ["%v", [0.00001], "1e-05"],
    ["%f %.2f %6.2f %.0f", [3.14159, 3.14159, 3.14159, 2.7], "3.141590 3.14   3.14 3"],
    ["%e %E", [123456.789, 0.000123], "1.234568e+05 1.230000E-04"],
    ["%g %.3g", [100000000.0, 3.14159], "1e+08 3.14"],
    [
      "%.2f %.0f %.0f %.2e (exact halves round to even)",
      [0.125, 2.5, 3.5, 1.125],
      "0.12 2 4 1.12e+00 (exact halves round to even)",
    ],
    ["%.1f %.3f %f", [0.05, 1e22, 0.0], "0.1 10000000000000000000000.000 0.000000"],
    ["%t %x %X", [true, 255n, "hi"], "true ff 6869"],
    ["%T %T %T", [1n, 1.5, "s"], "int float64 string"],
    ["%d", ["x"], "%!d(string=x)"],
    ["%s", [1.5], "%!s(float64=1.5)"],
    ["%d %d", [1n], "1 %!d(MISSING)"],
    ["%d", [1n, "x"], "1%!(EXTRA string=x)"],
    ["100%%", [], "100%"],
    ["%*d|%-*d", [5n, 42n, 3n, 7n], "   42|7  "],
    ["%*d", [2_000_000n, 1n], "%!(BADWIDTH)1"],
    ["%99999999d", [1n], "%!(NOVERB)%!(EXTRA int=1)"],
  ])("Sprintf(%j, …)", (format, args, expected) => {
    expect(goSprintf(format, args)).toBe(expected);
  });

  it("is the template's printf", () => {
    expect(render('{{printf "%.1f%% of %s" 12.345 .Title}}')).toBe("12.3% of Axiom Monitor Test Triggered");
  });
});

describe("errors name the line and the problem, as Go's do", () => {
  it.each([
    ["an unclosed action", "{\n  {{.Title", "template: webhook:2: unclosed action"],
    ["an unknown function", "{\n\n{{ toJson .Title }}", 'template: webhook:3: function "toJson" not defined'],
    ["an {{end}} with nothing to end", "x\n{{end}}", "template: webhook:2: unexpected {{end}}"],
    ["an if without {{end}}", "{{if .Title}}\nx", "template: webhook:2: unexpected EOF"],
    ["if without a value", "{{if}}{{end}}", "template: webhook:1: missing value for if"],
    ["an undefined variable", "{{$x}}", 'template: webhook:1: undefined variable "$x"'],
    ["an unterminated string", '{{printf "abc}}', "template: webhook:1: unterminated quoted string"],
    ["an unclosed comment", "{{/* x }}", "template: webhook:1: unclosed comment"],
    ["break outside range", "{{break}}", "template: webhook:1: {{break}} outside {{range}}"],
    ["nil alone", "{{nil}}", "template: webhook:1: nil is not a command"],
    [
      "a constant as a later pipeline stage",
      '{{.Title | "x"}}',
      "template: webhook:1: non executable command in pipeline stage 2",
    ],
    ["an argument to a constant", "{{1 2}}", "template: webhook:1: can't give argument to non-function 1"],
    [
      "an else after else",
      "{{if 1}}{{else}}{{else}}{{end}}",
      "template: webhook:1: expected end; found {{else}}",
    ],
  ])("parse: %s", (_name, template, message) => {
    const e = renderError(template);
    expect(e.phase).toBe("parse");
    expect(e.message).toBe(message);
  });

  it.each([
    [
      "a field the data does not have",
      "{\n  {{.Severity}}",
      'template: webhook:2:4: executing "webhook" at <.Severity>: can\'t evaluate field Severity in type notify.WebhookData',
    ],
    [
      "a float64 compared with an int constant (Go refuses it; write 100.0)",
      "{{if gt .Value 100}}big{{end}}",
      'template: webhook:1:5: executing "webhook" at <gt .Value 100>: error calling gt: incompatible types for comparison',
    ],
    [
      "index out of range",
      "{{index .GroupValues 5}}",
      'template: webhook:1:2: executing "webhook" at <index .GroupValues 5>: error calling index: index out of range: 5',
    ],
    [
      "arguments to a field",
      '{{.Title "x"}}',
      'template: webhook:1:2: executing "webhook" at <.Title "x">: Title has arguments but cannot be invoked as function',
    ],
    [
      "len of a number",
      "{{len .Value}}",
      'template: webhook:1:2: executing "webhook" at <len .Value>: error calling len: len of type float64',
    ],
    // The emulator's other bounds (steps, time, values, nesting) are test/emulator/notify-template-bounds.test.ts's.
    [
      "output without end (the emulator's bound)",
      // Eleven writes, not a thousand: far from the time budget however loaded the machine.
      '{{range 20}}{{printf "%100000s" "x"}}{{end}}',
      'template: webhook:1:14: executing "webhook" at <printf "%100000s" "x...>: the template\'s output passed the emulator\'s limit of 1 MiB (1048576 bytes)',
    ],
  ])("exec: %s", (_name, template, message) => {
    const e = renderError(template, template.includes("GroupValues") ? grouped : docsSample);
    expect(e.phase).toBe("exec");
    expect(e.message).toBe(message);
  });
});
