/// The HTML report's style sheet and script (`Resources/report.css`, `Resources/report.js`, embedded in the
/// code by SwiftPM), written into every report: it loads nothing.
package enum HTMLReportResources {
    package static let style = String(decoding: PackageResources.report_css, as: UTF8.self)
    package static let script = String(decoding: PackageResources.report_js, as: UTF8.self)
}
