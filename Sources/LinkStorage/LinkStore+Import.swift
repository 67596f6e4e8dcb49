import Foundation
import SwitchyardCore

extension LinkStore {
    /// What importing one link did.
    package enum ImportOutcome: String, Sendable, Equatable {
        case created, updated, unchanged
        /// A link of another kind has the code; it is left alone and this one not imported.
        case conflict
    }

    /// What an imported link leaves as the stored link has it.
    package struct ImportKeeping: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// The campaign (`utm`).
        package static let campaign = ImportKeeping(rawValue: 1)
        package static let tags = ImportKeeping(rawValue: 2)
    }

    /// What an import does with a code a stored link already has.
    package enum ImportExisting: Sendable {
        /// A link of the same kind is updated to the imported fields (Switchyard's own exports,
        /// Firebase's: the same file imported again).
        case update
        /// Nothing stored is changed: the same link (kind and fields) is `unchanged`, anything
        /// else a `conflict` (another shortener's links: a clash is reported, never overwritten).
        case keep
    }

    /// Stores imported links in one transaction: new codes are created (with their creation
    /// time and clicks), a link of the same kind under the same code is updated to the imported
    /// fields (its clicks kept) or left as it is when nothing differs, and a link of another kind
    /// is never touched (`conflict`); what `keeping` names stays as the existing link has it, and
    /// so does its password (no import carries one). Running the same import again changes nothing. With
    /// webhooks, `link.created` and `link.updated` are written in the same transaction.
    package func importLinks(_ links: [StoredLink], keeping: ImportKeeping = [], existing mode: ImportExisting = .update) async throws(StoreError) -> [ImportOutcome] {
        let outbox = self.outbox
        let now = Date()
        return try await write { () async throws(StoreError) -> [ImportOutcome] in
            try await db.transaction { tx throws(StoreError) -> [ImportOutcome] in
                var outcomes: [ImportOutcome] = []
                for link in links {
                    guard let existing = try await tx.run("SELECT \(Self.columns) FROM links WHERE code = ?", [.text(link.code)]).first.map(Self.link) else {
                        try await tx.run(Self.insertSQL, Self.insertBinds(link))
                        if let outbox, outbox.wants("link.created") { try await outbox.enqueue("link.created", data: outbox.render(link), at: now, in: tx) }
                        outcomes.append(.created)
                        continue
                    }
                    if mode == .keep { outcomes.append(Self.keptOutcome(existing, link)); continue }
                    guard existing.kind == link.kind else { outcomes.append(.conflict); continue }
                    var link = link
                    if keeping.contains(.campaign) { link.campaign = existing.campaign }
                    if keeping.contains(.tags) { link.tags = existing.tags }
                    // No import carries a password: an updated link keeps the one it has.
                    link.passwordHash = existing.passwordHash
                    if Self.sameTarget(existing, link) { outcomes.append(.unchanged); continue }
                    let updated = try await tx.run(Self.updateSQL, Self.updateBinds(link, updatedAt: now)).first.map(Self.link)
                    if let outbox, outbox.wants("link.updated"), let updated { try await outbox.enqueue("link.updated", data: outbox.render(updated), at: now, in: tx) }
                    outcomes.append(.updated)
                }
                return outcomes
            }
        }
    }

    /// What ``importLinks(_:keeping:existing:)`` would do with `links` in `.keep` mode, read
    /// without writing anything (a dry run's clashes).
    package func importOutcomes(_ links: [StoredLink]) async throws(StoreError) -> [ImportOutcome] {
        var outcomes: [ImportOutcome] = []
        outcomes.reserveCapacity(links.count)
        for link in links {
            guard let existing = try await db.read("SELECT \(Self.columns) FROM links WHERE code = ?", [.text(link.code)]).first.map(Self.link) else {
                outcomes.append(.created)
                continue
            }
            outcomes.append(Self.keptOutcome(existing, link))
        }
        return outcomes
    }

    /// What `.keep` makes of `link` where `existing` has its code: the same link is unchanged,
    /// anything else a conflict.
    static func keptOutcome(_ existing: StoredLink, _ link: StoredLink) -> ImportOutcome {
        existing.kind == link.kind && sameTarget(existing, link) ? .unchanged : .conflict
    }

    /// Whether two links send people to the same places with the same texts and limits.
    static func sameTarget(_ a: StoredLink, _ b: StoredLink) -> Bool {
        a.deepLink == b.deepLink && a.route == b.route && a.parameters.elementsEqual(b.parameters, by: ==) && a.webURL == b.webURL
            && a.appStoreURL == b.appStoreURL && a.playStoreURL == b.playStoreURL && a.title == b.title && a.description == b.description
            && a.imageURL == b.imageURL && a.expiresAt.map(millis) == b.expiresAt.map(millis) && a.maxUses == b.maxUses
            && a.campaign == b.campaign && a.tags == b.tags && a.expiredURL == b.expiredURL
    }
}
