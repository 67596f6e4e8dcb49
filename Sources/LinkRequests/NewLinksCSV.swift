import Foundation
import SwitchyardCore
import SwitchyardDocuments

/// New links as CSV, as the dashboard's "Create several" form takes them: a header naming fields
/// of `POST /api/links` (``columns``, in any order, any subset), then one link per record, each
/// read into the body that request would take. Values as `switchyard export csv` writes them:
/// `parameters` and `utm` as JSON objects, `tags` separated by spaces, an empty cell for none.
package enum NewLinksCSV {
    /// The columns a header may name.
    package static let columns = ["code", "domain", "deepLink", "route", "parameters", "webURL", "appStoreURL", "playStoreURL",
                                  "title", "description", "image", "expiresAt", "expiresIn", "maxUses", "utm", "tags", "expiredURL"]
    /// Columns of an export that a new link cannot take (its history).
    static let exportOnly: Set<String> = ["kind", "createdAt", "clicks", "updatedAt"]

    /// One record: its line, and its body or why it is none.
    package struct Row {
        package var line: Int
        package var body: Result<LinkRequest, APIError>
    }

    /// The records of `text`, at most `most` of them; 400 (field `csv`) for text that is not
    /// CSV, an empty file, a header naming a column twice or one no new link has, or too many
    /// records. A record's own problems are its row's.
    package static func rows(_ text: String, most: Int) throws(APIError) -> [Row] {
        let records: [(line: Int, fields: [String])]
        do { records = try CSV.parse(text) } catch {
            throw APIError.badRequest(.csvSyntax, "not CSV: line \(error.line): \(error.message)", field: "csv")
        }
        let nonEmpty = records.filter { !($0.fields.count == 1 && $0.fields[0].isEmpty) }
        guard let header = nonEmpty.first else {
            throw APIError.badRequest(.invalidField, "no links: give a header line naming columns (\(columns.joined(separator: ","))), then one link per line", field: "csv")
        }
        var names: [String] = []
        for raw in header.fields {
            let name = raw.trimmingCharacters(in: .whitespaces)
            if exportOnly.contains(name) {
                throw APIError.badRequest(.invalidField, "line \(header.line): \(name) is a column of an export, not a field of a new link; leave it out (switchyard import csv imports an export whole)", field: "csv")
            }
            guard columns.contains(name) else {
                let meant = DocumentShape.suggestion(for: name, among: columns).map { "; did you mean \(JSONWriter.quote($0))?" } ?? ""
                throw APIError.badRequest(.invalidField, "line \(header.line): \(JSONWriter.quote(name)) is no field of a new link\(meant) (columns: \(columns.joined(separator: ",")))", field: "csv")
            }
            guard !names.contains(name) else { throw APIError.badRequest(.invalidField, "line \(header.line): the column \(name) is named twice", field: "csv") }
            names.append(name)
        }
        let links = nonEmpty.dropFirst()
        guard !links.isEmpty else { throw APIError.badRequest(.invalidField, "no links: the header is not followed by any", field: "csv") }
        guard links.count <= most else { throw APIError.badRequest(.invalidField, "\(links.count) links; at most \(most) at once", field: "csv") }
        return links.map { record in
            Row(line: record.line, body: Result { () throws(APIError) in try body(record.fields, names: names) })
        }
    }

    /// The `POST /api/links` body of one record.
    static func body(_ fields: [String], names: [String]) throws(APIError) -> LinkRequest {
        guard fields.count == names.count else {
            throw APIError.badRequest(.invalidField, "\(fields.count) values where the header names \(names.count) columns")
        }
        var members: [(String, JSONValue)] = []
        for (name, value) in zip(names, fields) where !value.isEmpty {
            switch name {
            case "parameters", "utm":
                guard let parsed = try? JSONParser.parse(bytes: Array(CSVFields.spreadsheetText(value).utf8), loneSurrogates: .refuse, duplicateKeys: .refuse),
                      parsed.objectMembers != nil else {
                    throw APIError.badRequest(name == "parameters" ? .invalidParameters : .invalidField, "\(name) must be a JSON object (each name once), as export writes it", field: name)
                }
                members.append((name, parsed))
            case "tags":
                members.append((name, .array(value.split(separator: " ").map { .string(String($0)) })))
            case "maxUses", "expiresIn":
                // A number as the API takes it; anything else goes as text, which the API refuses saying why.
                let numeric = value.allSatisfy { "0123456789.-+eE".contains($0) }
                members.append((name, numeric ? Double(value).map { .number($0, text: value) } ?? .string(value) : .string(value)))
            case "title", "description":
                members.append((name, .string(CSVFields.spreadsheetText(value))))
            default:
                members.append((name, .string(value)))
            }
        }
        return try LinkRequest.decode(.object(members))
    }
}
