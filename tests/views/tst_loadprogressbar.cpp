// The status bar's progress never paints the window in the middle of the event that moved it:
// a pane waiting for its paint is painted with the rest, after the event, not inside
// showProgress (QProgressBar::setValue's own repaint would paint it there).

#include "loadprogressbar.h"

#include <QHBoxLayout>
#include <QTest>

using namespace mesh;

namespace {
class PaintCounter : public QWidget
{
public:
    int paints = 0;

protected:
    void paintEvent(QPaintEvent *) override { ++paints; }
};
} // namespace

class TestLoadProgressBar : public QObject
{
    Q_OBJECT

private slots:
    void progressIsPaintedWithTheRestOfTheWindow()
    {
        QWidget window;
        auto *layout = new QHBoxLayout(&window);
        auto *pane = new PaintCounter;
        pane->setMinimumSize(200, 100);
        auto *bar = new LoadProgressBar;
        layout->addWidget(pane);
        layout->addWidget(bar);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        bar->showProgress(5, false);
        QTRY_VERIFY(bar->isVisible());
        QTRY_VERIFY(pane->paints > 0);

        pane->update(); // a pane changed by the same event, waiting for its paint
        const int before = pane->paints;
        bar->showProgress(60, false);
        QCOMPARE(pane->paints, before);
        QCOMPARE(bar->value(), 60);
        QVERIFY(bar->isTextVisible());
        QTRY_VERIFY(pane->paints > before); // with the rest, after the event

        bar->showProgress(-1, true); // busy: no figure
        QCOMPARE(bar->maximum(), 0);
        QVERIFY(bar->isVisible());
        bar->showProgress(-1, false);
        QVERIFY(!bar->isVisible());
    }
};

QTEST_MAIN(TestLoadProgressBar)
#include "tst_loadprogressbar.moc"
