// The HTML viewer's files (src/export/html/viewer.{html,css,js}), embedded in the binary
// at build time by embed_viewer.cmake. The template holds the markers
// /*PERFLENS_TITLE*/, /*PERFLENS_CSS*/, /*PERFLENS_JS*/ and /*PERFLENS_DATA*/ that
// RenderHtmlReport (export/html.h) fills.
#pragma once

#include <string_view>

namespace perflens {

std::string_view HtmlViewerTemplate();
std::string_view HtmlViewerCss();
std::string_view HtmlViewerJs();

}  // namespace perflens
