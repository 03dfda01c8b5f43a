import PayPanel
/// Structure-aware mutations of JSON documents for fuzzing: it knows where the values are, so
/// most mutants get past the JSON parser and reach the validators behind it, and it also makes
/// the byte-level damage a parser must survive. Seeded: the same seed gives the same mutants.
public struct JSONMutator {
    /// The kinds of damage, each named in reports and saved inputs.
    public enum Mutation: String, Sendable, CaseIterable {
        case truncate = "truncation"
        case typeSwap = "type-swap"
        case hugeNumber = "huge-number"
        case deepNesting = "deep-nesting"
        case invalidUTF8 = "invalid-utf8"
        case longString = "long-string"
        case base64Noise = "base64-noise"
        case duplicateKey = "duplicate-key"
        case removeKey = "remove-key"
        case unknownKey = "unknown-key"
        case emptyValue = "empty-value"
        case unicodeTricks = "unicode-tricks"
        case cardNumber = "card-number"
        case numberText = "number-text"
        case byteFlip = "byte-flip"
        case manyElements = "many-elements"
    }

    /// One mutant: its bytes and the mutations that made it.
    public struct Mutant: Sendable {
        public let bytes: [UInt8]
        public let mutations: [Mutation]
    }

    private var random: SeededRandomNumberGenerator

    /// A mutator whose choices all come from `seed`.
    public init(seed: UInt64) {
        random = SeededRandomNumberGenerator(seed: seed)
    }

    /// One to three mutations of `document`.
    public mutating func mutate(_ document: JSONValue) -> Mutant {
        var value = document
        var applied: [Mutation] = []
        var bytes: [UInt8]?
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let mutation = Mutation.allCases[Int(random.next() % UInt64(Mutation.allCases.count))]
            applied.append(mutation)
            if let done = bytes {
                bytes = mutateBytes(done, mutation)
            } else if let structural = mutateValue(value, mutation) {
                value = structural
            } else {
                bytes = mutateBytes(expandNesting(Array(JSONWriter.string(value).utf8)), mutation)
            }
        }
        let output = bytes ?? expandNesting(Array(JSONWriter.string(value).utf8))
        // Mutations compound (long strings copied many times): keep each input bounded.
        return Mutant(bytes: Array(output.prefix(Self.maximumBytes)), mutations: applied)
    }

    /// The largest input made: two megabytes.
    public static let maximumBytes = 2 * 1024 * 1024

    /// Stands for a deeply nested value until the document is written out.
    static let nestingMarker = "\u{1}nest\u{1}"

    /// The document's text with its nesting markers replaced by 20 to 100,000 levels of arrays
    /// or objects around a number, in one pass, stopping at `maximumBytes`.
    private mutating func expandNesting(_ bytes: [UInt8]) -> [UInt8] {
        let marker = Array(JSONWriter.quoted(Self.nestingMarker).utf8)
        guard let first = marker.first, bytes.count >= marker.count else { return bytes }
        let depth = [20, 63, 64, 65, 100, 1000, 100_000][below(7)]
        let open: [UInt8] = below(2) == 0 ? Array("[".utf8) : Array("{\"a\":".utf8)
        let close: [UInt8] = open.count == 1 ? Array("]".utf8) : Array("}".utf8)
        var nested: [UInt8] = []
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == first, index + marker.count <= bytes.count, bytes[index..<index + marker.count].elementsEqual(marker) {
                if nested.isEmpty {
                    for _ in 0..<depth { nested += open }
                    nested.append(UInt8(ascii: "1"))
                    for _ in 0..<depth { nested += close }
                }
                output += nested
                index += marker.count
            } else {
                output.append(bytes[index])
                index += 1
            }
            if output.count > Self.maximumBytes { break }
        }
        return output
    }

    /// A random whole number below `bound`.
    public mutating func below(_ bound: Int) -> Int {
        bound <= 1 ? 0 : Int(random.next() % UInt64(bound))
    }

    // MARK: - On the document

    /// The mutation applied to one node of the tree, or nil for byte-level mutations.
    private mutating func mutateValue(_ document: JSONValue, _ mutation: Mutation) -> JSONValue? {
        switch mutation {
        case .truncate, .invalidUTF8, .byteFlip, .duplicateKey:
            return nil
        case .typeSwap:
            return replacingNode(in: document) { me, node in me.otherType(than: node) }
        case .hugeNumber:
            let literals = ["1e400", "-1e400", "99999999999999999999999999999", "-9223372036854775809", "9223372036854775808",
                            "1.00000000000000000000000000001", "-0", "0.0000000000000000000000001", "1E+2", "123456789012345678901234567890.5",
                            "4242424242424242", "-4242424242424242"]
            let literal = literals[below(literals.count)]
            return replacingNode(in: document) { _, _ in .number(JSONNumber(validatedLiteral: literal)) }
        case .deepNesting:
            // Nested as text: a tree this deep would overflow any recursive writer (the
            // program's own included), and the point is what the parser does with it.
            return replacingNode(in: document) { _, _ in .string(JSONMutator.nestingMarker) }
        case .longString:
            let units = ["A", "é", "😀", "e\u{301}", " ", "\\", "\"", "\u{0}", "9"]
            let unit = units[below(units.count)]
            let count = [256, 4097, 70_000, 300_000][below(4)]
            return replacingNode(in: document, strings: true) { _, _ in .string(String(repeating: unit, count: count)) }
        case .base64Noise:
            return replacingNode(in: document, strings: true) { me, node in .string(me.noisyBase64(node.stringValue ?? "")) }
        case .removeKey:
            return editingObject(in: document) { me, object in
                guard !object.isEmpty else { return object }
                var members = object.members
                members.remove(at: me.below(members.count))
                return JSONObject(members)
            }
        case .unknownKey:
            return editingObject(in: document) { me, object in
                var members = object.members
                let keys = ["__proto__", "constructor", "", "aps", "panel", "amount", "version", "\u{0}", "😀", "data"]
                members.insert((key: keys[me.below(keys.count)], value: .string("x")), at: me.below(members.count + 1))
                return JSONObject(members)
            }
        case .emptyValue:
            let empties: [JSONValue] = [.string(""), .array([]), .object(JSONObject()), .null, .string(" "), .number(0)]
            let empty = empties[below(empties.count)]
            return replacingNode(in: document) { _, _ in empty }
        case .unicodeTricks:
            let tricks = ["\u{202E}evil", "a\u{0}b", "\u{FEFF}10.00", "10\u{200B}.00", "１０.００", "\u{1F600}", "\r\nInjected: yes",
                          "\u{7}\u{1B}[31mred", "USD\u{0}", "'; DROP TABLE intents; --", "%s%n%x", "../../etc/passwd"]
            let trick = tricks[below(tricks.count)]
            return replacingNode(in: document, strings: true) { me, node in
                me.below(2) == 0 ? .string(trick) : .string((node.stringValue ?? "") + trick)
            }
        case .cardNumber:
            let numbers = ["4242424242424242", "4000 0000 0000 0002", "5555-5555-5555-4444", "378282246310005"]
            let number = numbers[below(numbers.count)]
            return replacingNode(in: document, strings: true) { me, node in
                me.below(2) == 0 ? .string(number) : .string((node.stringValue ?? "") + " " + number)
            }
        case .numberText:
            let texts = ["1e3", " 10", "10 ", "+10", "0x10", "10.001", "10.", ".5", "-0.00", "NaN", "Infinity", "10,00", "1_000", "٣"]
            let text = texts[below(texts.count)]
            return replacingNode(in: document) { me, node in
                if case .number = node { return .string(text) }
                return me.below(2) == 0 ? .string(text) : .number(JSONNumber(validatedLiteral: "10.50"))
            }
        case .manyElements:
            return replacingNode(in: document) { me, node in
                // Bounded: about a megabyte of copies at most.
                let size = JSONWriter.string(node).utf8.count
                let count = min([100, 1000, 50_000][me.below(3)], max(2, JSONMutator.maximumBytes / 2 / max(1, size)))
                if case .array(let items) = node, let first = items.first { return .array(Array(repeating: first, count: count)) }
                return .array(Array(repeating: node, count: count))
            }
        }
    }

    /// `document` with one node (preorder index drawn at random) replaced by `make`.
    private mutating func replacingNode(
        in document: JSONValue, strings: Bool = false, _ make: (inout JSONMutator, JSONValue) -> JSONValue
    ) -> JSONValue {
        let count = Self.count(document, strings: strings)
        guard count > 0 else { return make(&self, document) }
        var target = below(count)
        return replace(document, strings: strings, target: &target, make)
    }

    private mutating func replace(
        _ node: JSONValue, strings: Bool, target: inout Int, _ make: (inout JSONMutator, JSONValue) -> JSONValue
    ) -> JSONValue {
        let eligible = !strings || node.stringValue != nil
        if eligible {
            if target == 0 {
                target = -1
                return make(&self, node)
            }
            target -= 1
        }
        switch node {
        case .array(let items):
            var copy = items
            for index in copy.indices where target >= 0 { copy[index] = replace(copy[index], strings: strings, target: &target, make) }
            return .array(copy)
        case .object(let object):
            var members = object.members
            for index in members.indices where target >= 0 {
                members[index].value = replace(members[index].value, strings: strings, target: &target, make)
            }
            return .object(JSONObject(members))
        default:
            return node
        }
    }

    private static func count(_ node: JSONValue, strings: Bool) -> Int {
        let me = !strings || node.stringValue != nil ? 1 : 0
        switch node {
        case .array(let items): return me + items.reduce(0) { $0 + count($1, strings: strings) }
        case .object(let object): return me + object.members.reduce(0) { $0 + count($1.value, strings: strings) }
        default: return me
        }
    }

    /// `document` with one of its objects changed by `edit`.
    private mutating func editingObject(in document: JSONValue, _ edit: (inout JSONMutator, JSONObject) -> JSONObject) -> JSONValue {
        replacingNode(in: document) { me, node in
            guard case .object(let object) = node else {
                return .object(edit(&me, JSONObject([(key: "value", value: node)])))
            }
            return .object(edit(&me, object))
        }
    }

    private mutating func otherType(than node: JSONValue) -> JSONValue {
        let choices: [JSONValue] = [.string("10.00"), .number(1000), .bool(true), .null, .array([node]), .object(JSONObject([(key: "value", value: node)]))]
        var choice = choices[below(choices.count)]
        if choice.typeDescription == node.typeDescription { choice = .bool(false) }
        return choice
    }

    private mutating func noisyBase64(_ text: String) -> String {
        var characters = Array(text.isEmpty ? "AAAA" : text)
        switch below(6) {
        case 0: characters[below(characters.count)] = ["!", "-", "_", " ", "\n", "="][below(6)]
        case 1: characters.removeLast(min(characters.count, 1 + below(3)))
        case 2: characters.append(contentsOf: "==")
        case 3: characters.insert(contentsOf: "====", at: below(characters.count + 1))
        case 4:
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            for _ in 0..<(1 + below(8)) { characters[below(characters.count)] = alphabet[below(alphabet.count)] }
        default: characters = Array(String(characters.prefix(below(characters.count + 1))))
        }
        return String(characters)
    }

    // MARK: - On the bytes

    private mutating func mutateBytes(_ bytes: [UInt8], _ mutation: Mutation) -> [UInt8] {
        var bytes = bytes
        switch mutation {
        case .truncate:
            return Array(bytes.prefix(below(bytes.count + 1)))
        case .invalidUTF8:
            let sequences: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFE, 0xFF]]
            // Inside a string when there is one: the parser must reject it there too.
            let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
            let at = quotes.isEmpty ? below(bytes.count + 1) : quotes[below(quotes.count)] + 1
            bytes.insert(contentsOf: sequences[below(sequences.count)], at: min(at, bytes.count))
            return bytes
        case .duplicateKey:
            // `{"k": v, …}` → `{"k": v, "k": v, …}` for the first member.
            guard let open = bytes.firstIndex(of: UInt8(ascii: "{")), let colon = bytes[open...].firstIndex(of: UInt8(ascii: ":")),
                let comma = bytes[colon...].firstIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") })
            else { return bytes + Array(#"{"a":1,"a":2}"#.utf8) }
            let member = Array(bytes[(open + 1)..<comma])
            bytes.insert(contentsOf: member + [UInt8(ascii: ",")], at: open + 1)
            return bytes
        default:
            guard !bytes.isEmpty else { return [0] }
            for _ in 0..<(1 + below(4)) { bytes[below(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 << below(8)) }
            return bytes
        }
    }
}
