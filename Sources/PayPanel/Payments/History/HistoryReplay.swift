import Foundation

/// Replays an intent's recorded history through `PaymentStateMachine` and compares the result
/// with what is stored: the intent row, its attempts and refunds, its pending timers and its
/// outbox messages. Every stored change was made by one event in one transaction, so the
/// history alone must rebuild the current rows exactly — after a crash at any moment too.
///
/// This is the "event history replays to the current rows" check of the crash soak; it reads
/// the database only.
package struct HistoryReplay {
    package let ledger: PaymentLedger

    /// A replay of the histories stored through `ledger` (its policy is the machine's).
    package init(ledger: PaymentLedger) {
        self.ledger = ledger
    }

    /// Every disagreement between intent `intentID`'s history and its stored rows, one sentence
    /// each; empty when the history replays to exactly what is stored.
    package func discrepancies(intentID: String) throws -> [String] {
        guard let details = try ledger.details(intentID), let stored = try ledger.loadMachine(intentID) else {
            return ["\(intentID): not found"]
        }
        var found: [String] = []
        func note(_ text: String) { found.append("\(intentID): \(text)") }

        guard let creation = details.events.first, creation.version == 1, creation.type == "intent_created" else {
            return ["\(intentID): the history does not start with intent_created at version 1"]
        }
        var machine: PaymentStateMachine
        var actions: [PaymentAction]
        do {
            (machine, actions) = try created(from: creation, intentID: intentID)
        } catch {
            return ["\(intentID): \(error.message)"]
        }
        var timers: [TimerKey: Date] = [:]
        var outbox: [OutboxKey] = []
        apply(actions, version: 1, timers: &timers, outbox: &outbox)

        let decoder = StoredEventDecoder(storedAttempts: stored.attempts)
        for record in details.events.dropFirst() {
            if record.version != machine.intent.version + 1 {
                note("the history jumps from v\(machine.intent.version) to v\(record.version)")
                return found
            }
            if record.fromStatus != machine.intent.status {
                note("v\(record.version) \(record.type) says it left \(record.fromStatus?.rawValue ?? "nothing"), the replay is in \(machine.intent.status.rawValue)")
            }
            let event: PaymentEvent
            do {
                event = try decoder.event(record)
            } catch {
                note(error.message)
                return found
            }
            if event.name != record.type {
                note("v\(record.version) is stored as \(record.type) but decodes to \(event.name)")
            }
            if case .timerFired(let kind, let reference) = event {
                timers[TimerKey(kind: kind, reference: reference)] = nil  // fired timers are consumed first
            }
            do {
                actions = try machine.apply(event, at: record.occurredAt)
            } catch {
                note("v\(record.version) \(record.type) is refused on replay: \(error.message)")
                return found
            }
            if machine.intent.status != record.toStatus {
                note("v\(record.version) \(record.type) is recorded as → \(record.toStatus?.rawValue ?? "?"), the replay goes → \(machine.intent.status.rawValue)")
            }
            apply(actions, version: machine.intent.version, timers: &timers, outbox: &outbox)
        }

        found += compare(stored: stored, replayed: machine).map { "\(intentID): \($0)" }
        found += try compareTimers(intentID: intentID, expected: timers, replayed: machine).map { "\(intentID): \($0)" }
        found += try compareOutbox(intentID: intentID, expected: outbox).map { "\(intentID): \($0)" }
        return found
    }

    /// `discrepancies` for every intent in the database, with how many intents were replayed.
    package func discrepanciesOfAllIntents() throws -> (intents: Int, findings: [String]) {
        let ids = try ledger.store.read { try $0.allIntentIDs() }
        var findings: [String] = []
        for id in ids { findings += try discrepancies(intentID: id) }
        return (ids.count, findings)
    }

    // MARK: - Steps

    private func created(from record: PaymentEventRecord, intentID: String) throws(HistoryDecodingError) -> (PaymentStateMachine, [PaymentAction]) {
        let failure = { (field: String) in HistoryDecodingError(version: 1, type: record.type, reason: "field \(field) is missing or malformed") }
        guard let data = try? JSONParser().parse(Array(record.data.utf8)) else { throw failure("data") }
        guard let minorUnits = data["amount"]?.int64Value else { throw failure("amount") }
        guard let code = data["currency"]?.stringValue, let currency = try? Currency(code: code) else { throw failure("currency") }
        guard let method = data["captureMethod"]?.stringValue.flatMap(CaptureMethod.init(rawValue:)) else { throw failure("captureMethod") }
        let orderReference = data["orderReference"]?.stringValue
        var metadata = Metadata.empty
        if let stored = data["metadata"] {
            guard let read = Metadata(json: stored) else { throw failure("metadata") }
            metadata = read
        }
        return PaymentStateMachine.create(
            id: intentID, amount: Amount(minorUnits: minorUnits, currency: currency), captureMethod: method,
            orderReference: orderReference, metadata: metadata, at: record.occurredAt, policy: ledger.policy)
    }

    private func apply(_ actions: [PaymentAction], version: Int64, timers: inout [TimerKey: Date], outbox: inout [OutboxKey]) {
        for action in actions {
            switch action {
            case .scheduleTimer(let timer): timers[TimerKey(kind: timer.kind, reference: timer.reference)] = timer.dueAt
            case .cancelTimer(let kind, let reference): timers[TimerKey(kind: kind, reference: reference)] = nil
            case .emitOutbox(let topic, let refundID): outbox.append(OutboxKey(version: version, topic: topic.rawValue, refundID: refundID))
            default: continue
            }
        }
    }

    // MARK: - Comparisons

    private func compare(stored: PaymentStateMachine, replayed: PaymentStateMachine) -> [String] {
        guard stored != replayed else { return [] }
        var found: [String] = []
        if stored.intent != replayed.intent {
            found.append("the intent row differs from the replay: \(Self.difference(stored.intent.json, replayed.intent.json))")
        }
        if stored.attempts.map(\.id) != replayed.attempts.map(\.id) {
            found.append("stored attempts \(stored.attempts.map(\.id)) ≠ replayed \(replayed.attempts.map(\.id))")
        } else {
            for (mine, theirs) in zip(stored.attempts, replayed.attempts) where mine != theirs {
                found.append("attempt \(mine.id) differs from the replay: \(Self.difference(mine.json, theirs.json))")
            }
        }
        if stored.refunds.map(\.id).sorted() != replayed.refunds.map(\.id).sorted() {
            found.append("stored refunds \(stored.refunds.map(\.id)) ≠ replayed \(replayed.refunds.map(\.id))")
        } else {
            for mine in stored.refunds {
                if let theirs = replayed.refunds.first(where: { $0.id == mine.id }), theirs != mine {
                    found.append("refund \(mine.id) differs from the replay: \(Self.difference(mine.json, theirs.json))")
                }
            }
        }
        if found.isEmpty { found.append("the stored rows differ from the replay in a field their JSON does not show") }
        return found
    }

    /// The keys whose values differ, as `key: stored → replayed`.
    static func difference(_ stored: JSONValue, _ replayed: JSONValue) -> String {
        guard let mine = stored.objectValue, let theirs = replayed.objectValue else { return "\(stored) → \(replayed)" }
        let keys = mine.keys + theirs.keys.filter { !mine.keys.contains($0) }
        let parts = keys.compactMap { key -> String? in
            let left = mine[key] ?? .null
            let right = theirs[key] ?? .null
            return left == right ? nil : "\(key): \(JSONWriter.string(left)) → \(JSONWriter.string(right))"
        }
        return parts.isEmpty ? "(a field the JSON does not show)" : parts.joined(separator: "; ")
    }

    private func compareTimers(intentID: String, expected: [TimerKey: Date], replayed: PaymentStateMachine) throws -> [String] {
        let rows = try ledger.store.read { try $0.timers(ofIntent: intentID) }
        var found: [String] = []
        var stored: Set<TimerKey> = []
        for row in rows {
            let (kind, reference, dueAt) = (row.kind, row.reference, Timestamp.epochMilliseconds(row.dueAt))
            let key = TimerKey(kind: kind, reference: reference)
            stored.insert(key)
            guard let due = expected[key] else {
                found.append("timer \(kind.rawValue) \(reference) is stored but no event scheduled it")
                continue
            }
            if Timestamp.epochMilliseconds(due) != dueAt {
                found.append("timer \(kind.rawValue) \(reference) is due at \(Timestamp.format(Timestamp.date(epochMilliseconds: dueAt))), the replay says \(Timestamp.format(due))")
            }
        }
        for key in expected.keys where !stored.contains(key) {
            // A reconciliation timer whose call no longer waits is deleted without an event.
            if key.kind == .reconciliation && !Self.awaits(replayed, reference: key.reference) { continue }
            found.append("timer \(key.kind.rawValue) \(key.reference) should be pending but is not stored")
        }
        return found
    }

    private static func awaits(_ machine: PaymentStateMachine, reference: String) -> Bool {
        if machine.intent.inFlight?.attemptID == reference { return true }
        return machine.refunds.contains { $0.id == reference && $0.status == .pending }
    }

    private func compareOutbox(intentID: String, expected: [OutboxKey]) throws -> [String] {
        let stored = try ledger.store.read { try $0.outbox(ofIntent: intentID) }.map {
            OutboxKey(version: $0.intentVersion, topic: $0.topic, refundID: $0.refundID)
        }
        guard stored != expected else { return [] }
        let missing = expected.filter { !stored.contains($0) }.map(\.description)
        let extra = stored.filter { !expected.contains($0) }.map(\.description)
        return ["the outbox differs from the replay (missing: \(missing), unexpected: \(extra))"]
    }
}

private struct TimerKey: Hashable {
    let kind: PaymentTimer.Kind
    let reference: String
}

private struct OutboxKey: Equatable, CustomStringConvertible {
    let version: Int64
    let topic: String
    let refundID: String?

    var description: String { "v\(version) \(topic)\(refundID.map { " \($0)" } ?? "")" }
}
