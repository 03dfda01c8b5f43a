import PayPanel
import PayPanelServer

/// The one JSON line `serve` writes to standard error for a worker event: `"worker"` names the
/// duty (`reconcile`, `checkouts`, `push`, `webhooks`), then what it did or the error's code.
enum WorkerLogLine {
    static func line(_ event: WorkerEvent) -> String {
        let members: [(String, JSONValue)] = switch event {
        case .reconciled(let report):
            [("worker", "reconcile"), ("timers", .number(report.timers.count)), ("lookups", .number(report.lookups.count)),
             ("failures", .number(report.failures.count))]
        case .reconcileFailed(let error): failure("reconcile", error)
        case .checkoutExpiryFailed(let error): failure("checkouts", error)
        case .pushed(let attempted): pushed(attempted)
        case .pushFailed(let error): failure("push", error)
        case .webhooksRelayed(let report):
            [("worker", "webhooks"), ("published", .number(report.published)), ("delivered", .number(report.delivered)),
             ("retrying", .number(report.retrying)), ("failed", .number(report.failed)), ("disabled", .number(report.disabled))]
        case .webhooksFailed(let error): failure("webhooks", error)
        }
        return JSONWriter.string(.orderedObject(members))
    }

    /// The count of each status the attempted deliveries reached, and the distinct reasons of
    /// those that failed for good.
    private static func pushed(_ attempted: [PushDelivery]) -> [(String, JSONValue)] {
        var counts: [(String, JSONValue)] = [("worker", "push"), ("attempted", .number(attempted.count))]
        for status in PushDeliveryStatus.allCases {
            let count = attempted.filter { $0.status == status }.count
            if count > 0 { counts.append((status.rawValue, .number(count))) }
        }
        let loud = attempted.filter { $0.status == .failed }.compactMap(\.reason)
        if !loud.isEmpty { counts.append(("failure_reasons", .array(Array(Set(loud)).sorted().map(JSONValue.string)))) }
        return counts
    }

    /// The duty and the error's code, never its message (which may name a file or a host).
    private static func failure(_ duty: String, _ error: any Error) -> [(String, JSONValue)] {
        [("worker", .string(duty)), ("error", .string((error as? any PayPanelError)?.code ?? "internal_error"))]
    }
}
