// skytrace: GUI entry point.
#include <QApplication>

#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Skytrace"));
  QApplication::setApplicationVersion(QStringLiteral(SKYTRACE_VERSION));
  QApplication::setOrganizationName(QStringLiteral("Skytrace"));
  skytrace::ui::MainWindow window;
  window.show();
  return app.exec();
}
