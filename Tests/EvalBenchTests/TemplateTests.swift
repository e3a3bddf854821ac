import Testing
@testable import EvalBench

@Suite("Templates")
struct TemplateTests {
    @Test("Placeholders are replaced, with or without spaces inside the braces")
    func rendersPlaceholders() throws {
        let template = Template("Plan a day in {{city}} in {{ style }}.")
        #expect(try template.render(["city": "Kyoto", "style": "one word"]) == "Plan a day in Kyoto in one word.")
        #expect(template.names == ["city", "style"])
    }

    @Test("Every unknown name is reported once, in order of first use")
    func reportsAllUnknownNames() {
        let template = Template("{{a}} {{b}} {{a}} {{c}}")
        #expect(throws: Template.UnknownVariables(names: ["a", "c"])) {
            try template.render(["b": "B"])
        }
    }

    @Test("Substituted values are not rendered again")
    func noRecursion() throws {
        #expect(try Template("say {{x}}").render(["x": "{{y}}"]) == "say {{y}}")
    }

    @Test("Filling in some names leaves the other placeholders as written and reads no value for placeholders")
    func fillsInOnePass() {
        let template = Template("{{ a }}|{{b}}|{{ c }}|{{a}}")
        #expect(template.filling(["a": "{{b}}", "b": "{{ a }}"]) == "{{b}}|{{ a }}|{{ c }}|{{b}}")
    }

    @Test("Braces around something that is not a name stay as text")
    func jsonBracesAreText() throws {
        let text = #"Reply like {{"label": "cat"}} or { {x} }"#
        #expect(Template(text).names.isEmpty)
        #expect(try Template(text).render([:]) == text)
    }

    @Test("Names are letters, digits, '_', '-' and '.', starting with a letter or '_'")
    func validNames() {
        #expect(Template.isValidName("user_name-2.first"))
        #expect(!Template.isValidName("2nd"))
        #expect(!Template.isValidName("my var"))
        #expect(!Template.isValidName(""))
    }
}
