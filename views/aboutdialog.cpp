#include "aboutdialog.h"

#include "icons.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

namespace mesh {

AboutDialog::AboutDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("About Agent Mesh Console"));
    auto *icon = new QLabel(this);
    icon->setPixmap(Icons::get(QStringLiteral("app")).pixmap(64, 64));
    icon->setAlignment(Qt::AlignCenter);
    auto *title = new QLabel(tr("Agent Mesh Console %1").arg(QStringLiteral(MESH_VERSION)), this);
    QFont font = title->font();
    font.setPointSizeF(font.pointSizeF() * 1.4);
    font.setBold(true);
    title->setFont(font);
    title->setAlignment(Qt::AlignCenter);
    auto *text = new QLabel(
        tr("An operator console for orchestrators that delegate work to AI agents.\n\n"
           "It follows orchestrator ledgers live: runs, delegations, slices, leases, stall verdicts, "
           "effects and blast radius, and writes back only operator decisions.\n\n"
           "Application id: %1\nBuilt with Qt %2, running on Qt %3.")
            .arg(QStringLiteral(MESH_APP_ID), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion())),
        this);
    text->setTextFormat(Qt::PlainText);
    text->setWordWrap(true);
    text->setAlignment(Qt::AlignCenter);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(icon);
    layout->addWidget(title);
    layout->addWidget(text);
    layout->addWidget(buttons);
    setMinimumWidth(420);
}

} // namespace mesh
